-- Issue 16 (perf): search ranks a bounded set, busy workspaces take their number late, REST path.

--! include issues/search.sql

-- Search ranks at most the newest 1,000 matches (issue 16).

--! include issues/search.sql

-- GraphQL searchIssues (app_public.search_issues) is dropped: it paged by row position, so a match written between two
-- pages repeated or skipped one; issuesList(query) pages the same search by keyset (rank, number). plugins() says its order.
drop function if exists app_public.search_issues(text);
--! include issues/search.sql
--! include auth/plugins.sql

-- Endpoint URLs: the shown form keeps only scheme, host and port (src/domain/redact-url.ts). The
-- old rule kept short or punctuated path segments and query names, so stored redacted forms may
-- hold keys; they are rewritten from the stored form itself (scheme, userinfo mark, host and port
-- survive in it; every path segment and the query are replaced), no decryption needed.
update endpoints set url_redacted = coalesce(
  (select m[1] || coalesce(m[2], '') || m[3]
      || regexp_replace(coalesce(m[4], ''), '[^/]+', '****', 'g')
      || case when coalesce(m[5], '') in ('', '?') then '' else '?****' end
   from regexp_match(url_redacted, '^([a-z][a-z0-9+.-]*://)(\*\*\*\*@)?([^/?#]*)(/[^?#]*)?(\?[^#]*)?') as r(m)),
  '****');

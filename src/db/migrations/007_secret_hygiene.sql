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

-- Idempotency records belong to the principal that sent the request (API key id, or the JWT's
-- tenant and subject), not to the whole tenant: another key of the tenant, holding other scopes,
-- must not replay (and so read) someone else's response. Records kept so far may hold a created
-- API key's plaintext secret, so all of them are dropped; they live 24 hours only, and a client
-- retrying across this upgrade runs its request once more.
delete from idempotency_keys;
alter table idempotency_keys add column principal text not null;
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (tenant_id, principal, key);

-- An endpoint's addresses: one per transport ({transport, url_redacted, url_encrypted}), every
-- transport's URL stored the one way, encrypted and redacted like the HTTP url always was. The
-- columns of before (url_*, ws_url_* from 021) become views Postgres derives from the list
-- (generated columns): SQL that shows an endpoint's URL and readers from before keep working, and
-- nothing can write a URL past the list.
alter table endpoints add column addresses jsonb;

update endpoints set addresses =
  jsonb_build_array(jsonb_build_object('transport', 'http', 'url_redacted', url_redacted, 'url_encrypted', url_encrypted))
  || case
       when ws_url_encrypted is null then '[]'::jsonb
       else jsonb_build_array(jsonb_build_object('transport', 'ws', 'url_redacted', ws_url_redacted, 'url_encrypted', ws_url_encrypted))
     end;

-- A list of objects with a text transport, url_redacted and url_encrypted each, a transport at
-- most once. (An http address is required too: the generated url columns below are not null.)
create function endpoint_addresses_valid(addresses jsonb) returns boolean
  language sql immutable
  as $$
    select case when jsonb_typeof(addresses) <> 'array' then false else (
      -- A missing field's type is null: coalesced to false, or bool_and would skip it.
      select coalesce(bool_and(coalesce(jsonb_typeof(a -> 'transport') = 'string'
                                        and jsonb_typeof(a -> 'url_redacted') = 'string'
                                        and jsonb_typeof(a -> 'url_encrypted') = 'string', false)), true)
             and count(*) = count(distinct a ->> 'transport')
        from jsonb_array_elements(addresses) as a
    ) end
  $$;

alter table endpoints
  alter column addresses set not null,
  add constraint endpoints_addresses_valid check (endpoint_addresses_valid(addresses)),
  drop constraint endpoints_ws_url_pair,
  drop column url_redacted,
  drop column url_encrypted,
  drop column ws_url_redacted,
  drop column ws_url_encrypted;

alter table endpoints
  add column url_redacted text not null
    generated always as (jsonb_path_query_first(addresses, '$[*] ? (@.transport == "http").url_redacted') #>> '{}') stored,
  add column url_encrypted text not null
    generated always as (jsonb_path_query_first(addresses, '$[*] ? (@.transport == "http").url_encrypted') #>> '{}') stored,
  add column ws_url_redacted text
    generated always as (jsonb_path_query_first(addresses, '$[*] ? (@.transport == "ws").url_redacted') #>> '{}') stored,
  add column ws_url_encrypted text
    generated always as (jsonb_path_query_first(addresses, '$[*] ? (@.transport == "ws").url_encrypted') #>> '{}') stored;

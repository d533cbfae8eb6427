-- An endpoint's WebSocket URL, beside its HTTP url: a secret like it (providers put the same key in
-- both), so stored encrypted and shown only redacted. Both columns are set or both are null.
alter table endpoints
  add column ws_url_redacted text,
  add column ws_url_encrypted text,
  add constraint endpoints_ws_url_pair check ((ws_url_redacted is null) = (ws_url_encrypted is null));

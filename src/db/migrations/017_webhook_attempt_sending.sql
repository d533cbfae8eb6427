-- A webhook attempt is written before its request is sent ('sending') and completed with the
-- answer: an attempt cut short by a worker's death still shows in the log (at-least-once: the
-- receiver may have had it). Its latency is null until it is answered.
alter table webhook_delivery_attempts drop constraint webhook_delivery_attempts_outcome_check;
alter table webhook_delivery_attempts add constraint webhook_delivery_attempts_outcome_check
  check (outcome in ('sending', 'delivered', 'failed'));
alter table webhook_delivery_attempts alter column latency_ms drop not null;

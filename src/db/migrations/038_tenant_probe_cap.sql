-- Issue 31 (DESIGN §17). A tenant's cap on probe activities in flight at once, over every worker
-- (null: the service's default, RVS_TENANT_MAX_PROBE_ACTIVITIES). A probe activity over the cap
-- gives its worker slot back and asks again a little later; its run waits, it never fails.
alter table tenants add column max_probe_activities integer check (max_probe_activities > 0);

-- One row per probe activity in flight: held while it probes, renewed while it lives, deleted when
-- it ends. A lease whose worker died runs out at expires_at (its retry takes it back at once: the
-- key is the Temporal activity's, the same on every attempt).
create table tenant_probe_leases (
  tenant_id uuid not null references tenants (id) on delete cascade,
  lease_key text not null,
  worker text not null,
  expires_at timestamptz not null,
  primary key (tenant_id, lease_key)
);

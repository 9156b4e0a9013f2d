"""The migrations that keep spec v0.4's history (docs/spec/v0.4.md#history.versions) in the
pgvector store's schema: the table, the triggers that write it on every write path, the
function an import carries an archive's versions through. Apart from ``_migrations`` for size;
its list (``MIGRATIONS``) holds them in order."""

from __future__ import annotations

from psycopg import sql

from mnemowire.kit.history import DEFAULT_HISTORY_LIMIT, VERSION_FIELDS

__all__ = ["Statement", "v8_history", "v10_carried_history", "v12_audited_by_statement"]

#: one step of a migration
Statement = sql.SQL | sql.Composed
#: how every history function runs: as the schema's owner, the schema's search_path fixed
DEFINER = "LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT"


def temporary_tables_last(*functions: str) -> sql.SQL:
    """Every function that runs as the owner looks the session's temporary tables up last:
    unlisted, pg_temp comes first, and an application role could shadow history (or the bound
    in mnemowire_meta) with a temporary table of its own and write unrecorded. A DO block,
    since the path is the migration's own (``migrate`` sets it)."""
    listed = ", ".join(f"'{name}'" for name in functions)
    return sql.SQL(
        f"""DO $$
            DECLARE
                fixed text := current_setting('search_path') || ', pg_temp';
                name text;
            BEGIN
                FOREACH name IN ARRAY ARRAY[{listed}] LOOP
                    EXECUTE format('ALTER FUNCTION %s SET search_path = %s', name, fixed);
                END LOOP;
            END $$"""
    )


def v8_history(dimension: int) -> list[Statement]:
    """Spec v0.4's history (docs/spec/v0.4.md#history.versions), kept by statement triggers so
    no write path (a COPY included) can skip it: a row per version of a record, its fields
    kept only once a later version replaces it (the newest is the record itself). A change
    drops what is past the operator's bound (``mnemowire_meta`` ``history_limit``). The audit
    entry a write appends names its ids: a trigger on audit_log gives their new versions its
    place and time. Erasing a record erases its history. The functions run as the
    schema's owner with its search_path fixed, so an application role reads the history
    (SELECT) but cannot write it other than through its own audited writes."""
    changed = " OR ".join(f"o.{c} IS DISTINCT FROM n.{c}" for c in VERSION_FIELDS)
    snapshot = ", ".join(f"'{c}', o.{c}" for c in VERSION_FIELDS)
    definer = DEFINER
    return [
        sql.SQL(
            """CREATE TABLE history (
                record_id text NOT NULL,
                revision bigint NOT NULL,
                at bigint NOT NULL,
                audit_seq bigint,
                fields jsonb,
                PRIMARY KEY (record_id, revision)
            )"""
        ),
        sql.SQL("REVOKE ALL ON history FROM PUBLIC"),
        # every record stored before has one version, the one it holds now, made by the
        # last audit entry naming it
        sql.SQL(
            "INSERT INTO history (record_id, revision, at, audit_seq) "
            "SELECT m.id, 1, coalesce(a.at, m.updated_at), a.position FROM memories m "
            "LEFT JOIN (SELECT DISTINCT ON (i.id) i.id, l.at, l.position FROM audit_log l "
            "CROSS JOIN LATERAL jsonb_array_elements_text(l.ids) AS i(id) "
            "ORDER BY i.id, l.seq DESC) a ON a.id = m.id"
        ),
        sql.SQL(
            "INSERT INTO mnemowire_meta (key, value) VALUES ('history_limit', {}) "
            "ON CONFLICT (key) DO NOTHING"
        ).format(sql.Literal(str(DEFAULT_HISTORY_LIMIT))),
        sql.SQL(
            f"""CREATE FUNCTION history_stored() RETURNS trigger {definer} AS $$
            BEGIN
                INSERT INTO history (record_id, revision, at)
                    SELECT n.id, 1, n.updated_at FROM new_rows n;
                RETURN NULL;
            END $$"""
        ),
        sql.SQL(
            f"""CREATE FUNCTION history_changed() RETURNS trigger {definer} AS $$
            DECLARE
                bound bigint := (SELECT value::bigint FROM mnemowire_meta
                                 WHERE key = 'history_limit');
            BEGIN
                UPDATE history h SET fields = c.fields FROM
                    (SELECT n.id, jsonb_build_object({snapshot}) AS fields
                     FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE {changed}) c
                    WHERE h.record_id = c.id AND h.revision =
                        (SELECT max(revision) FROM history WHERE record_id = c.id);
                INSERT INTO history (record_id, revision, at)
                    SELECT n.id, (SELECT coalesce(max(revision), 0) + 1 FROM history
                                  WHERE record_id = n.id), n.updated_at
                    FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE {changed};
                IF bound IS NOT NULL THEN
                    DELETE FROM history h USING
                        (SELECT record_id, max(revision) AS newest FROM history
                         WHERE record_id IN (SELECT id FROM new_rows) GROUP BY record_id) t
                        WHERE h.record_id = t.record_id AND h.revision <= t.newest - bound;
                END IF;
                RETURN NULL;
            END $$"""
        ),
        sql.SQL(
            f"""CREATE FUNCTION history_erased() RETURNS trigger {definer} AS $$
            BEGIN
                DELETE FROM history WHERE record_id IN (SELECT id FROM old_rows);
                RETURN NULL;
            END $$"""
        ),
        sql.SQL(
            f"""CREATE FUNCTION history_audited() RETURNS trigger {definer} AS $$
            BEGIN
                UPDATE history SET audit_seq = NEW.position, at = NEW.at
                    WHERE audit_seq IS NULL
                    AND record_id IN (SELECT jsonb_array_elements_text(NEW.ids));
                RETURN NULL;
            END $$"""
        ),
        sql.SQL(
            "CREATE TRIGGER history_stored AFTER INSERT ON memories "
            "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION history_stored()"
        ),
        sql.SQL(
            "CREATE TRIGGER history_changed AFTER UPDATE ON memories "
            "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
            "FOR EACH STATEMENT EXECUTE FUNCTION history_changed()"
        ),
        sql.SQL(
            "CREATE TRIGGER history_erased AFTER DELETE ON memories "
            "REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION history_erased()"
        ),
        sql.SQL(
            "CREATE TRIGGER history_audited AFTER INSERT ON audit_log "
            "FOR EACH ROW EXECUTE FUNCTION history_audited()"
        ),
    ]


def v10_carried_history(dimension: int) -> list[Statement]:
    """Spec v0.4's history carried by an archive (docs/spec/v0.4.md#import.history): a version
    an import brought keeps what its source's entry said (``carried``), since no audit entry
    of this schema made it, and the import's own entry must not claim it. An application role
    cannot write history, so the import hands its versions to ``history_carry``, which runs as
    the owner and only reaches a record written in the caller's transaction and not yet
    audited (one version, no audit entry): it cannot rewrite a record's past. The functions
    that run as the owner search the session's temporary tables last."""
    definer = DEFINER
    return [
        sql.SQL("ALTER TABLE history ADD COLUMN carried jsonb"),
        sql.SQL(
            f"""CREATE OR REPLACE FUNCTION history_audited() RETURNS trigger {definer} AS $$
            BEGIN
                UPDATE history SET audit_seq = NEW.position, at = NEW.at
                    WHERE audit_seq IS NULL AND carried IS NULL
                    AND record_id IN (SELECT jsonb_array_elements_text(NEW.ids));
                RETURN NULL;
            END $$"""
        ),
        sql.SQL(
            f"""CREATE FUNCTION history_carry(versions jsonb) RETURNS void {definer} AS $$
            DECLARE
                bound bigint := (SELECT value::bigint FROM mnemowire_meta
                                 WHERE key = 'history_limit');
            BEGIN
                CREATE TEMP TABLE carried_now ON COMMIT DROP AS
                    SELECT v.id, v.revision, v.at, v.fields, v.said
                    FROM jsonb_to_recordset(versions)
                        AS v(id text, revision bigint, at bigint, fields jsonb, said jsonb);
                CREATE TEMP TABLE carried_own ON COMMIT DROP AS
                    SELECT id, max(revision) + 1 AS own FROM carried_now GROUP BY id;
                IF EXISTS (SELECT 1 FROM carried_own c WHERE (
                        SELECT count(*) <> 1 OR bool_or(h.revision <> 1 OR h.audit_seq IS NOT NULL
                                                        OR h.carried IS NOT NULL)
                        FROM history h WHERE h.record_id = c.id)) THEN
                    RAISE EXCEPTION 'a record was not written by this import'
                        USING ERRCODE = 'insufficient_privilege';
                END IF;
                UPDATE history h SET revision = c.own FROM carried_own c
                    WHERE h.record_id = c.id AND h.revision = 1;
                INSERT INTO history (record_id, revision, at, fields, carried)
                    SELECT id, revision, at, fields, said FROM carried_now;
                IF bound IS NOT NULL THEN
                    DELETE FROM history h USING carried_own c
                        WHERE h.record_id = c.id AND h.revision <= c.own - bound;
                END IF;
                DROP TABLE carried_now, carried_own;
            END $$"""
        ),
        temporary_tables_last(
            "history_stored()",
            "history_changed()",
            "history_erased()",
            "history_audited()",
            "history_carry(jsonb)",
        ),
    ]


def v12_audited_by_statement(dimension: int) -> list[Statement]:
    """The audit entries one statement appends give their records' new versions a place and
    time in one UPDATE (a statement trigger over the new entries), no longer one UPDATE per
    entry: a write of n records in one transaction appends n entries (a remember_batch, a bulk
    load), and each entry's UPDATE scanned the history the transaction had grown, n scans of up
    to n rows (10,000 records: 15.8 s to load, 0.8 s without the trigger). As before, the first
    entry naming a record (the lowest position) claims its versions no entry claimed yet."""
    return [
        sql.SQL(
            f"""CREATE OR REPLACE FUNCTION history_audited() RETURNS trigger {DEFINER} AS $$
            BEGIN
                UPDATE history h SET audit_seq = e.position, at = e.at
                    FROM (SELECT DISTINCT ON (i.id) i.id, n.position, n.at FROM new_entries n
                          CROSS JOIN LATERAL jsonb_array_elements_text(n.ids) AS i(id)
                          ORDER BY i.id, n.position) e
                    WHERE h.record_id = e.id AND h.audit_seq IS NULL AND h.carried IS NULL;
                RETURN NULL;
            END $$"""
        ),
        sql.SQL("DROP TRIGGER history_audited ON audit_log"),
        sql.SQL(
            "CREATE TRIGGER history_audited AFTER INSERT ON audit_log "
            "REFERENCING NEW TABLE AS new_entries "
            "FOR EACH STATEMENT EXECUTE FUNCTION history_audited()"
        ),
        temporary_tables_last("history_audited()"),
    ]

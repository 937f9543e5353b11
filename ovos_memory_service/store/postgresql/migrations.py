"""The PostgreSQL schema, as numbered migrations (the tables of the SQLite
store, store/sqlite/migrations.py, as they are after its m010). Never edit a
shipped migration: add the next one.

:func:`migrate` applies what is missing in one transaction that holds a
transaction-level advisory lock, so daemons that start together wait for
the first one and then find everything applied. The vectors table is made
by ``open_vectors`` (its dimension is the model's).
"""
from typing import Callable, List, Tuple

# pg_advisory_xact_lock key of schema changes (database wide: CREATE EXTENSION is too)
MIGRATION_LOCK = "ovos-memory-service: schema"

MIGRATIONS: List[Tuple[str, str]] = []


def migration(function: Callable[[], str]):
    MIGRATIONS.append((function.__name__, function()))
    return function


@migration
def m001_initial():
    return """
    -- one row per conversation of a (user, persona, session); lang: the session's,
    -- which picks the text search configuration of its memories
    CREATE TABLE conversations (
        n BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,  -- creation order (SQLite's rowid)
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,          -- '' is the default persona namespace
        session_id TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        lang TEXT
    );
    CREATE INDEX conversations_scope ON conversations (user_id, persona_id, session_id, started_at);
    CREATE INDEX conversations_session ON conversations (user_id, session_id, started_at);

    -- every memory: turns (role set) and long-term items (facts, summaries...)
    CREATE TABLE memories (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        conversation_id TEXT,
        role TEXT,
        name TEXT,
        content TEXT NOT NULL,
        tool_calls TEXT,                   -- JSON
        tool_call_id TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        slot TEXT,
        value TEXT,
        status TEXT NOT NULL DEFAULT 'current',
        confidence DOUBLE PRECISION,
        sources TEXT,                      -- JSON list of memory ids
        extractor TEXT
    );
    CREATE INDEX memories_conversation ON memories (conversation_id, seq);
    CREATE INDEX memories_owner ON memories (user_id, kind, created_at);
    CREATE INDEX memories_slot ON memories (user_id, slot);
    CREATE INDEX memories_user_seq ON memories (user_id, seq);

    -- what a memory is found by (store/postgresql/text.py); goes with its memory
    CREATE TABLE memory_text (
        seq BIGINT PRIMARY KEY REFERENCES memories (seq) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        ts_config TEXT NOT NULL,           -- the text search configuration of ``search``
        search TSVECTOR NOT NULL,          -- name (B), content (A), the turn before (C)
        terms TSVECTOR NOT NULL            -- the content's FTS5 tokens (coverage)
    );
    CREATE INDEX memory_text_search ON memory_text USING gin (search);
    CREATE INDEX memory_text_terms ON memory_text USING gin (terms);
    CREATE INDEX memory_text_user ON memory_text (user_id);

    -- the text search configurations each user's memories use (keyword queries are
    -- made once per configuration); a user's rows go with the user's last memory
    CREATE TABLE user_configs (
        user_id TEXT NOT NULL,
        ts_config TEXT NOT NULL,
        PRIMARY KEY (user_id, ts_config)
    );

    -- request ids of acknowledged history updates, so a retry is stored once
    CREATE TABLE update_requests (
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        request_id TEXT NOT NULL,
        ids TEXT NOT NULL,                 -- JSON list of the stored ids
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (user_id, persona_id, session_id, request_id)
    );
    CREATE INDEX update_requests_age ON update_requests (created_at);

    -- paused scopes: session_id '' pauses every session of the user
    CREATE TABLE pauses (
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        paused_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (user_id, session_id)
    );

    -- persona backend configurations registered with memory.persona.configure
    CREATE TABLE personas (
        persona_id TEXT PRIMARY KEY,
        memory_module TEXT NOT NULL,
        config TEXT NOT NULL,              -- JSON
        updated_at DOUBLE PRECISION NOT NULL
    );

    -- how far each conversation's rolling summary reaches
    CREATE TABLE summaries (
        conversation_id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL,
        covered_seq BIGINT NOT NULL
    );
    CREATE INDEX summaries_memory ON summaries (memory_id);

    -- the background queues; ids come from a sequence, never reused, and a
    -- claim is held until claimed_until, or while its claimant's session lives
    CREATE TABLE jobs (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        queue TEXT NOT NULL,               -- embed, facts, llm_facts, llm_summary
        subject TEXT NOT NULL,             -- a memory id; a conversation id for llm_summary
        persona_id TEXT NOT NULL DEFAULT '',
        lang TEXT NOT NULL DEFAULT '',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at DOUBLE PRECISION NOT NULL DEFAULT 0,
        claimed_until DOUBLE PRECISION NOT NULL DEFAULT 0,
        claimant INTEGER,                  -- the advisory lock its claimant's session holds
        error TEXT,
        UNIQUE (queue, subject)
    );
    CREATE INDEX jobs_due ON jobs (queue, next_at);
    CREATE INDEX jobs_subject ON jobs (subject);
    """


@migration
def m002_settings():
    return """
    -- the store's own settings; vector_model: the embedding model that made the vectors
    CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """


@migration
def m003_auth_level():
    return """
    -- the speaker's authentication level when a memory was said (OVOS-USER-ID-1, 0-5);
    -- NULL for memories stored before (not known)
    ALTER TABLE memories ADD COLUMN auth_level INTEGER;
    """


def migrate(conn, schema: str) -> List[str]:
    """Create ``schema`` if needed and apply the missing migrations, under the
    advisory lock, in one transaction; returns the names applied."""
    from psycopg import sql
    applied_now = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, "
                     "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        done = {name for (name,) in conn.execute("SELECT name FROM schema_migrations")}
        for name, script in MIGRATIONS:
            if name not in done:
                conn.execute(script)
                conn.execute("INSERT INTO schema_migrations (name) VALUES (%s)", [name])
                applied_now.append(name)
    return applied_now

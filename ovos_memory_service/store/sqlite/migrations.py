"""The SQLite schema, as numbered migrations. Never edit a shipped migration:
add the next one. Applied by :func:`ovos_memory_service.store.sqlite.connection.open_database`.
"""
import time

from ovos_utils.log import LOG
from sqlite_utils import Migrations

migrations = Migrations("ovos_memory_service")


@migrations()
def m001_initial(db):
    db.executescript("""
    -- one row per conversation (Memori's session) of a (user, persona, session)
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,          -- '' is the default persona namespace
        session_id TEXT NOT NULL,
        started_at REAL NOT NULL,          -- epoch seconds
        updated_at REAL NOT NULL           -- time of the newest stored turn
    );
    CREATE INDEX conversations_scope ON conversations (user_id, persona_id, session_id, started_at);

    -- every memory: turns (role set) and long-term items (facts, summaries...)
    CREATE TABLE memories (
        seq INTEGER PRIMARY KEY,           -- rowid, shared with the FTS index
        id TEXT NOT NULL UNIQUE,           -- stable public id
        kind TEXT NOT NULL,                -- turn, fact, preference, skill, attribute, summary
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        conversation_id TEXT,              -- turns only
        role TEXT,                         -- turns only
        name TEXT,                         -- the speaker's (or tool's) name
        content TEXT NOT NULL,
        tool_calls TEXT,                   -- JSON, assistant turns only
        tool_call_id TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX memories_conversation ON memories (conversation_id, seq);
    CREATE INDEX memories_owner ON memories (user_id, kind, created_at);

    -- keyword index over name + content, kept current by triggers
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        name, content, content='memories', content_rowid='seq',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, name, content) VALUES (new.seq, new.name, new.content);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content)
        VALUES ('delete', old.seq, old.name, old.content);
    END;
    CREATE TRIGGER memories_au AFTER UPDATE OF name, content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content)
        VALUES ('delete', old.seq, old.name, old.content);
        INSERT INTO memories_fts (rowid, name, content) VALUES (new.seq, new.name, new.content);
    END;

    -- request ids of acknowledged history updates, so a retry is stored once
    CREATE TABLE update_requests (
        user_id TEXT NOT NULL,
        persona_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        request_id TEXT NOT NULL,
        ids TEXT NOT NULL,                 -- JSON list of the stored ids
        created_at REAL NOT NULL,
        PRIMARY KEY (user_id, persona_id, session_id, request_id)
    );

    -- paused scopes: session_id '' pauses every session of the user
    CREATE TABLE pauses (
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        paused_at REAL NOT NULL,
        PRIMARY KEY (user_id, session_id)
    );

    -- persona backend configurations registered with memory.persona.configure
    CREATE TABLE personas (
        persona_id TEXT PRIMARY KEY,
        memory_module TEXT NOT NULL,
        config TEXT NOT NULL,              -- JSON block of that module
        updated_at REAL NOT NULL
    );
    """)


@migrations()
def m002_embed_jobs(db):
    db.executescript("""
    -- memories waiting for their embedding; triggers keep it in step with
    -- memories, so no write path can forget to queue one. A rewritten
    -- memory gets a new rowid here, which tells the worker to embed it again.
    CREATE TABLE embed_jobs (
        memory_id TEXT PRIMARY KEY,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at REAL NOT NULL DEFAULT 0,   -- epoch seconds of the next try
        error TEXT
    );
    CREATE TRIGGER memories_embed_ai AFTER INSERT ON memories
    WHEN new.content != '' AND coalesce(new.role, '') != 'tool' BEGIN
        INSERT OR REPLACE INTO embed_jobs (memory_id) VALUES (new.id);
    END;
    CREATE TRIGGER memories_embed_au AFTER UPDATE OF name, content ON memories
    WHEN new.content != '' AND coalesce(new.role, '') != 'tool' BEGIN
        INSERT OR REPLACE INTO embed_jobs (memory_id) VALUES (new.id);
    END;
    CREATE TRIGGER memories_embed_ad AFTER DELETE ON memories BEGIN
        DELETE FROM embed_jobs WHERE memory_id = old.id;
    END;
    INSERT INTO embed_jobs (memory_id)
        SELECT id FROM memories WHERE content != '' AND coalesce(role, '') != 'tool';
    """)


# the text of the turn before a turn in its conversation (NULL for other memories)
_PREVIOUS = """(SELECT p.content FROM memories p WHERE p.conversation_id = {row}.conversation_id
               AND p.kind = 'turn' AND p.seq < {row}.seq ORDER BY p.seq DESC LIMIT 1)"""
_NEXT = """(SELECT n.seq FROM memories n WHERE n.conversation_id = {row}.conversation_id
           AND n.kind = 'turn' AND n.seq > {row}.seq ORDER BY n.seq LIMIT 1)"""


@migrations()
def m003_search_context(db):
    """Index each turn with the turn before it (a reply is found by the
    question it answers). The context is derived, never stored: the index
    reads it through a view, and triggers re-index the next turn whenever a
    turn is deleted or rewritten, so forgotten text leaves every entry."""
    prev_new, prev_old = _PREVIOUS.format(row="new"), _PREVIOUS.format(row="old")
    next_old = _NEXT.format(row="old")
    db.executescript(f"""
    DROP TRIGGER memories_ai;
    DROP TRIGGER memories_ad;
    DROP TRIGGER memories_au;
    DROP TABLE memories_fts;
    CREATE VIEW memories_search AS
        SELECT m.seq, m.name, m.content, {_PREVIOUS.format(row="m")} AS context FROM memories m;
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        name, content, context, content='memories_search', content_rowid='seq',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, name, content, context)
        VALUES (new.seq, new.name, new.content, {prev_new});
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context)
        VALUES ('delete', old.seq, old.name, old.content, {prev_old});
        -- the next turn was indexed with the deleted text as its context
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context)
        SELECT 'delete', n.seq, n.name, n.content, old.content FROM memories n WHERE n.seq = {next_old};
        INSERT INTO memories_fts (rowid, name, content, context)
        SELECT n.seq, n.name, n.content, {prev_old} FROM memories n WHERE n.seq = {next_old};
    END;
    CREATE TRIGGER memories_au AFTER UPDATE OF name, content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context)
        VALUES ('delete', old.seq, old.name, old.content, {prev_old});
        INSERT INTO memories_fts (rowid, name, content, context)
        VALUES (new.seq, new.name, new.content, {prev_new});
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context)
        SELECT 'delete', n.seq, n.name, n.content, old.content FROM memories n WHERE n.seq = {next_old};
        INSERT INTO memories_fts (rowid, name, content, context)
        SELECT n.seq, n.name, n.content, new.content FROM memories n WHERE n.seq = {next_old};
    END;
    INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
    """)


@migrations()
def m004_fact_model(db):
    """Facts with a slot, a value, a status (a superseded value stays as history),
    provenance and confidence; a queue of user turns to extract facts from."""
    db.executescript("""
    ALTER TABLE memories ADD COLUMN slot TEXT;          -- e.g. residence, pet.dog.name
    ALTER TABLE memories ADD COLUMN value TEXT;
    ALTER TABLE memories ADD COLUMN status TEXT NOT NULL DEFAULT 'current';  -- or superseded, retracted
    ALTER TABLE memories ADD COLUMN confidence REAL;
    ALTER TABLE memories ADD COLUMN sources TEXT;       -- JSON list of the turn ids it came from
    ALTER TABLE memories ADD COLUMN extractor TEXT;     -- user, rules, llm
    CREATE INDEX memories_slot ON memories (user_id, slot);

    CREATE TABLE fact_jobs (
        memory_id TEXT PRIMARY KEY,        -- a stored user turn
        lang TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at REAL NOT NULL DEFAULT 0,
        error TEXT
    );
    CREATE TRIGGER memories_fact_jobs_ad AFTER DELETE ON memories BEGIN
        DELETE FROM fact_jobs WHERE memory_id = old.id;
    END;

    -- only current memories are embedded
    DROP TRIGGER memories_embed_ai;
    DROP TRIGGER memories_embed_au;
    CREATE TRIGGER memories_embed_ai AFTER INSERT ON memories
    WHEN new.content != '' AND coalesce(new.role, '') != 'tool' AND new.status = 'current' BEGIN
        INSERT OR REPLACE INTO embed_jobs (memory_id) VALUES (new.id);
    END;
    CREATE TRIGGER memories_embed_au AFTER UPDATE OF name, content, status ON memories
    WHEN new.content != '' AND coalesce(new.role, '') != 'tool' AND new.status = 'current' BEGIN
        INSERT OR REPLACE INTO embed_jobs (memory_id) VALUES (new.id);
    END;
    """)


@migrations()
def m005_llm_work(db):
    """Background work for an LLM endpoint, and how far each conversation's
    rolling summary reaches."""
    db.executescript("""
    CREATE TABLE llm_jobs (
        task TEXT NOT NULL,                -- 'facts': an exchange; 'summary': a conversation
        subject TEXT NOT NULL,             -- the exchange's user turn id, or the conversation id
        persona_id TEXT NOT NULL,          -- whose backend configures the endpoint
        lang TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at REAL NOT NULL DEFAULT 0,
        error TEXT,
        PRIMARY KEY (task, subject)
    );
    CREATE INDEX llm_jobs_due ON llm_jobs (next_at);
    -- a forgotten (or replaced) user turn takes its pending extraction with it
    CREATE TRIGGER memories_llm_jobs_ad AFTER DELETE ON memories WHEN old.kind = 'turn' BEGIN
        DELETE FROM llm_jobs WHERE task = 'facts' AND subject = old.id;
    END;

    CREATE TABLE summaries (
        conversation_id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL,           -- the 'summary' memory
        covered_seq INTEGER NOT NULL       -- the last turn folded into it
    );
    CREATE TRIGGER memories_summaries_ad AFTER DELETE ON memories WHEN old.kind = 'summary' BEGIN
        DELETE FROM summaries WHERE memory_id = old.id;
    END;
    """)


# epoch seconds of 1970-01-01 and of 2101-01-01 (UTC): the times wire.parse_time
# accepts, written out so that this migration never changes
_EARLIEST_S = 0.0
_AFTER_LATEST_S = 4133980800.0


def _repair_times(db, table: str, columns, now: float) -> int:
    """Times a reader cannot render: before 1970 become 1970; after 2100,
    infinite or not a number become now. Returns how many were repaired."""
    repaired = 0
    for column in columns:
        repaired += db.execute(f"""
            UPDATE {table} SET {column} = CASE
                WHEN typeof({column}) IN ('integer', 'real') AND {column} < {_EARLIEST_S}
                    THEN {_EARLIEST_S} ELSE ? END
            WHERE NOT (typeof({column}) IN ('integer', 'real')
                       AND {column} >= {_EARLIEST_S} AND {column} < {_AFTER_LATEST_S})""",
            [now]).rowcount
    return repaired


@migrations()
def m006_repair_times(db):
    """Earlier versions accepted any ISO 8601 time (year 1, year 9999), and a
    single such value made every read of that user fail: bring them in range."""
    now = time.time()
    repaired = (_repair_times(db, "memories", ("created_at", "updated_at"), now)
                + _repair_times(db, "conversations", ("started_at", "updated_at"), now))
    if repaired:
        LOG.warning(f"memory store: {repaired} stored times were out of range and were repaired")


@migrations()
def m007_one_job_queue(db):
    """One queue table for every kind of background work, queued by the store
    in the same transaction as what it is about (no triggers), with ids that
    are never reused (AUTOINCREMENT) and claims that lapse (claimed_until).
    The jobs of the three old tables carry over; their triggers go."""
    db.executescript("""
    CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        queue TEXT NOT NULL,               -- embed, facts, llm_facts, llm_summary
        subject TEXT NOT NULL,             -- a memory id; a conversation id for llm_summary
        persona_id TEXT NOT NULL DEFAULT '',
        lang TEXT NOT NULL DEFAULT '',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at REAL NOT NULL DEFAULT 0,   -- epoch seconds of the next try
        claimed_until REAL NOT NULL DEFAULT 0,
        error TEXT,
        UNIQUE (queue, subject)
    );
    CREATE INDEX jobs_due ON jobs (queue, next_at);
    CREATE INDEX jobs_subject ON jobs (subject);
    INSERT INTO jobs (queue, subject, attempts, next_at, error)
        SELECT 'embed', memory_id, attempts, next_at, error FROM embed_jobs ORDER BY rowid;
    INSERT INTO jobs (queue, subject, lang, attempts, next_at, error)
        SELECT 'facts', memory_id, lang, attempts, next_at, error FROM fact_jobs ORDER BY rowid;
    INSERT INTO jobs (queue, subject, persona_id, lang, attempts, next_at, error)
        SELECT 'llm_' || task, subject, persona_id, lang, attempts, next_at, error FROM llm_jobs ORDER BY rowid;
    DROP TRIGGER memories_embed_ai;
    DROP TRIGGER memories_embed_au;
    DROP TRIGGER memories_embed_ad;
    DROP TRIGGER memories_fact_jobs_ad;
    DROP TRIGGER memories_llm_jobs_ad;
    DROP TRIGGER memories_summaries_ad;
    DROP TABLE embed_jobs;
    DROP TABLE fact_jobs;
    DROP TABLE llm_jobs;
    """)


@migrations()
def m008_keywords_per_user(db):
    """Keyword search within one user's memories: each memory carries its
    user's number (``owner``, from the new ``users`` table), indexed as an FTS5
    column, so a query matches the user's rows only instead of every user's
    (one five-word query matched 46,878 of 100,000 rows before the user filter).
    An index on (user_id, seq) finds a user's newest memories without sorting them all."""
    prev_new, prev_old = _PREVIOUS.format(row="new"), _PREVIOUS.format(row="old")
    next_old = _NEXT.format(row="old")
    db.executescript(f"""
    CREATE TABLE users (
        n INTEGER PRIMARY KEY,             -- the owner number the keyword index holds
        user_id TEXT NOT NULL UNIQUE
    );
    INSERT INTO users (user_id) SELECT DISTINCT user_id FROM memories ORDER BY user_id;
    ALTER TABLE memories ADD COLUMN owner INTEGER;
    UPDATE memories SET owner = (SELECT n FROM users WHERE users.user_id = memories.user_id);
    CREATE INDEX memories_user_seq ON memories (user_id, seq);

    DROP TRIGGER memories_ai;
    DROP TRIGGER memories_ad;
    DROP TRIGGER memories_au;
    DROP TABLE memories_fts;
    DROP VIEW memories_search;
    CREATE VIEW memories_search AS
        SELECT m.seq, m.name, m.content, {_PREVIOUS.format(row="m")} AS context, m.owner FROM memories m;
    CREATE VIRTUAL TABLE memories_fts USING fts5 (
        name, content, context, owner, content='memories_search', content_rowid='seq',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, name, content, context, owner)
        VALUES (new.seq, new.name, new.content, {prev_new}, new.owner);
    END;
    CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context, owner)
        VALUES ('delete', old.seq, old.name, old.content, {prev_old}, old.owner);
        -- the next turn was indexed with the deleted text as its context
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context, owner)
        SELECT 'delete', n.seq, n.name, n.content, old.content, n.owner FROM memories n WHERE n.seq = {next_old};
        INSERT INTO memories_fts (rowid, name, content, context, owner)
        SELECT n.seq, n.name, n.content, {prev_old}, n.owner FROM memories n WHERE n.seq = {next_old};
    END;
    CREATE TRIGGER memories_au AFTER UPDATE OF name, content ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context, owner)
        VALUES ('delete', old.seq, old.name, old.content, {prev_old}, old.owner);
        INSERT INTO memories_fts (rowid, name, content, context, owner)
        VALUES (new.seq, new.name, new.content, {prev_new}, new.owner);
        INSERT INTO memories_fts (memories_fts, rowid, name, content, context, owner)
        SELECT 'delete', n.seq, n.name, n.content, old.content, n.owner FROM memories n WHERE n.seq = {next_old};
        INSERT INTO memories_fts (rowid, name, content, context, owner)
        SELECT n.seq, n.name, n.content, new.content, n.owner FROM memories n WHERE n.seq = {next_old};
    END;
    INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
    """)


@migrations()
def m009_settings(db):
    """The store's own settings; ``vector_model``: the embedding model that made
    the vectors, so that another model re-embeds them instead of comparing its
    queries with them."""
    db.executescript("""
    CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """)


@migrations()
def m010_auth_level(db):
    """The speaker's authentication level when a memory was said (OVOS-USER-ID-1,
    0-5); NULL for memories stored before (not known)."""
    db.executescript("""
    ALTER TABLE memories ADD COLUMN auth_level INTEGER;
    """)

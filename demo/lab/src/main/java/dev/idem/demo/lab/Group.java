package dev.idem.demo.lab;

/**
 * The lesson's patterns and claims, in table order: what {@code --list} groups rows by, what
 * {@code --scenarios} accepts besides row ids, and the report's sections. The scenarios' two groups
 * come first, as their tables do; the pattern rows' groups follow in the order of their table.
 */
public enum Group {
    KEYS("keys", "Idempotency keys at the HTTP edge"),
    INBOX("inbox", "The inbox: a consumer's effect once per message"),
    STORE("store", "A store that does not persist forgets"),
    LOCK("lock", "The lock behind a key: a row lock or a unique INSERT"),
    UPSERT("upsert", "Natural-key upserts"),
    STATE("state", "State assignments instead of increments"),
    WINDOW("window", "A windowed aggregate run again over the same input"),
    KAFKA("kafka", "Kafka's exactly-once: inside Kafka, and at its boundary"),
    FLEET("fleet", "A fleet: several instances on one database under a nemesis"),
    FAILOVER("failover", "The database fails over: asynchronous against synchronous replication");

    private final String id;
    private final String title;

    Group(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /** As {@code --scenarios} takes it. */
    public String id() {
        return id;
    }

    public String title() {
        return title;
    }
}

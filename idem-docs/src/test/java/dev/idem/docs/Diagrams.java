package dev.idem.docs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The documentation's diagrams (docs/images/*.svg): a sequence diagram for each case a key meets
 * (success and replay, a concurrent duplicate, a crash and resume, a mismatch, an expired key) and
 * the engine's state machine. Generated here so that every diagram has one style and one source;
 * {@link DiagramsTest} keeps the committed files equal to what this draws.
 */
final class Diagrams {
    private Diagrams() {
    }

    /** File name (under docs/images) to SVG text, in the order the pages show them. */
    static Map<String, String> all() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("sequence-success.svg", success());
        all.put("sequence-concurrent-duplicate.svg", concurrentDuplicate());
        all.put("sequence-crash-and-resume.svg", crashAndResume());
        all.put("sequence-mismatch.svg", mismatch());
        all.put("sequence-expired-key.svg", expiredKey());
        all.put("state-machine.svg", stateMachine());
        return all;
    }

    private static final int CLIENT = 0;
    private static final int SERVICE = 1;
    private static final int STORE = 2;
    private static final int GATEWAY = 3;

    static String success() {
        return new SequenceDiagram("Success, then a retry that is replayed", "client", "service (idem)", "key store", "card gateway")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1")
                .message(SERVICE, STORE, "claim(k1, fingerprint)")
                .reply(STORE, SERVICE, "acquired: token 1, lease 30 s")
                .message(SERVICE, GATEWAY, "charge  Idempotency-Key: charge-…")
                .reply(GATEWAY, SERVICE, "201 ch_1")
                .message(SERVICE, STORE, "complete(k1, token 1, 201 + body)")
                .reply(SERVICE, CLIENT, "201 Created")
                .pause("the client retries: its answer was slow, or lost")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1 (same body)")
                .message(SERVICE, STORE, "claim(k1, fingerprint)")
                .reply(STORE, SERVICE, "replay: the stored 201")
                .note(SERVICE, GATEWAY, "the operation does not run again; the gateway is not called")
                .reply(SERVICE, CLIENT, "201 Created  Idempotent-Replayed: true")
                .svg();
    }

    static String concurrentDuplicate() {
        return new SequenceDiagram("Two requests with one key at the same time", "client A", "client B", "service (idem)", "key store")
                .message(0, 2, "POST /payments  Idempotency-Key: k1")
                .message(1, 2, "POST /payments  Idempotency-Key: k1")
                .message(2, 3, "claim(k1) for A")
                .reply(3, 2, "acquired: token 1")
                .message(2, 3, "claim(k1) for B")
                .reply(3, 2, "in progress (A holds the lease)")
                .reply(2, 1, "409 key-in-use  Retry-After: 1")
                .note(2, "A's operation runs, once")
                .message(2, 3, "complete(k1, token 1, 201)")
                .reply(2, 0, "201 Created")
                .pause("B waits Retry-After, then asks again")
                .message(1, 2, "POST /payments  Idempotency-Key: k1")
                .message(2, 3, "claim(k1)")
                .reply(3, 2, "replay: A's 201")
                .reply(2, 1, "201 Created  Idempotent-Replayed: true")
                .svg();
    }

    static String crashAndResume() {
        return new SequenceDiagram("A crash after the charge, and the retry that resumes", "client", "instance 1", "instance 2", "key store",
                "card gateway")
                .message(0, 1, "POST /payments  Idempotency-Key: k1")
                .message(1, 3, "claim(k1)")
                .reply(3, 1, "acquired: token 1")
                .message(1, 3, "checkpoint 'create': payment 42")
                .message(1, 4, "charge  Idempotency-Key: charge-7f3a")
                .note(4, "charges ch_1")
                .crash(1, "SIGKILL before the 'charge' checkpoint")
                .lost(1, 0, "connection reset")
                .pause("instance 1's lease ends (30 s); the client retries, the balancer picks instance 2")
                .message(0, 2, "POST /payments  Idempotency-Key: k1")
                .message(2, 3, "claim(k1)")
                .reply(3, 2, "acquired: token 2, attempt 2, 'create' done")
                .note(2, "skips 'create': payment 42 comes from the checkpoint")
                .message(2, 4, "charge  Idempotency-Key: charge-7f3a (the same key)")
                .reply(4, 2, "201 ch_1 (the gateway's replay: no second charge)")
                .message(2, 3, "complete(k1, token 2, 201)")
                .reply(2, 0, "201 Created")
                .note(1, 3, "a late write of instance 1 with token 1 would be refused: fencing")
                .svg();
    }

    static String mismatch() {
        return new SequenceDiagram("The same key for a different request", "client", "service (idem)", "key store", "card gateway")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1  {amount: 100}")
                .note(SERVICE, STORE, "runs and completes as in the success case")
                .reply(SERVICE, CLIENT, "201 Created")
                .pause("the client reuses k1 for another request")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1  {amount: 250}")
                .message(SERVICE, STORE, "claim(k1, another fingerprint)")
                .reply(STORE, SERVICE, "mismatch: nothing changed")
                .note(SERVICE, GATEWAY, "nothing runs; the first 201 stays stored for k1")
                .reply(SERVICE, CLIENT, "422 key-mismatch (application/problem+json)")
                .svg();
    }

    static String expiredKey() {
        return new SequenceDiagram("A retry after the key's retention", "client", "service (idem)", "key store", "card gateway")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1")
                .note(SERVICE, STORE, "runs and completes: charge ch_1, 201 stored for 24 h")
                .reply(SERVICE, CLIENT, "201 Created")
                .pause("24 h pass: the record is past its retention; the sweeper deletes it")
                .message(CLIENT, SERVICE, "POST /payments  Idempotency-Key: k1 (a very late retry)")
                .message(SERVICE, STORE, "claim(k1)")
                .reply(STORE, SERVICE, "acquired: the record is absent, as for a new key")
                .message(SERVICE, GATEWAY, "charge  Idempotency-Key: charge-…")
                .reply(GATEWAY, SERVICE, "201 (a gateway that keeps its keys longer replays; else ch_2)")
                .reply(SERVICE, CLIENT, "201 Created (not a replay)")
                .note(CLIENT, STORE, "keep the retention longer than any client retries")
                .svg();
    }

    /** absent, IN_PROGRESS and COMPLETED, and every transition the store contract allows. */
    static String stateMachine() {
        StringBuilder s = new StringBuilder();
        int w = 1000;
        int h = 400;
        s.append(String.format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
                + "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\">%n", w, h, w, h));
        s.append("<title>The engine's state machine: a record is absent, in progress or completed</title>\n");
        s.append("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">"
                + "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker></defs>\n");
        s.append(String.format("<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n", w, h));
        state(s, 20, 170, 170, "absent", "no record, or past retention");
        state(s, 370, 170, 220, "IN_PROGRESS", "token, lease, recovery point");
        state(s, 760, 170, 170, "COMPLETED", "stored response");
        // absent -> IN_PROGRESS
        arrow(s, "M190,185 L370,185", 280, 175, "claim");
        // IN_PROGRESS -> absent
        arrow(s, "M370,210 L190,210", 280, 232, "release(token)");
        // IN_PROGRESS -> COMPLETED
        arrow(s, "M590,200 L760,200", 675, 190, "complete(token)");
        // COMPLETED -> absent, below
        arrow(s, "M845,219 C845,360 105,360 105,221", 480, 352, "retention ends (purge, or a claim treats it as absent)");
        // Loops over IN_PROGRESS
        arrow(s, "M420,155 C400,80 460,80 450,155", 360, 92, "renew(token, d): lease = now + d");
        arrow(s, "M480,155 C480,60 540,60 520,155", 500, 52, "checkpoint(token, point)");
        arrow(s, "M560,155 C590,80 640,100 580,157", 690, 92, "lease over + claim: token' > token, attempt + 1");
        // Loop over COMPLETED
        arrow(s, "M930,176 C990,160 990,212 930,200", 845, 140, "claim: replay, or mismatch");
        s.append(String.format("<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#5b6570\" text-anchor=\"middle\">%s</text>%n", 480, 290,
                Layout.escape("every write with a token takes effect only while the record is in progress with exactly that token")));
        return s.append("</svg>\n").toString();
    }

    private static void state(StringBuilder s, int x, int y, int width, String name, String detail) {
        s.append(String.format("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"64\" rx=\"8\" fill=\"#eef3fb\" stroke=\"#6b8cc7\" stroke-width=\"1.5\"/>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"600\" text-anchor=\"middle\">%s</text>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#5b6570\" text-anchor=\"middle\">%s</text>%n",
                x, y - 15, width, x + width / 2, y + 8, Layout.escape(name), x + width / 2, y + 28, Layout.escape(detail)));
    }

    private static void arrow(StringBuilder s, String path, int labelX, int labelY, String label) {
        s.append(String.format("<path d=\"%s\" fill=\"none\" stroke=\"#333\" marker-end=\"url(#arrow)\"/>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s</text>%n", path, labelX, labelY, Layout.escape(label)));
    }
}

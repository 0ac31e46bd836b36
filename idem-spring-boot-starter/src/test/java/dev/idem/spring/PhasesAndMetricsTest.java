package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.ScopeResolver;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A handler running phases through {@code IdempotencyFilter.execution(request)}, and the Micrometer
 * counters the starter registers moving with claims, replays, conflicts, mismatches and takeovers.
 */
abstract class PhasesAndMetricsTest extends AppTest {

    @Test
    void aRetryAfterAFailedPhaseResumesAfterTheFinishedOneWithTheSameDownstreamKey() throws Exception {
        String key = fresh("phased");
        String item = fresh("phased-item");

        HttpResponse<String> failed = send(post("/phased", key, itemJson(item)).build());
        assertThat(failed.statusCode()).as("the charge failed after the reservation").isEqualTo(500);
        assertThat(app.record(ScopeResolver.ANONYMOUS, "POST /phased", key)).as("kept for resumption")
                .hasValueSatisfying(record -> assertThat(record.recoveryPoint()).isPresent());

        HttpResponse<String> retry = send(post("/phased", key, itemJson(item)).build());
        HttpResponse<String> replay = send(post("/phased", key, itemJson(item)).build());

        assertThat(retry.statusCode()).isEqualTo(200);
        JsonNode body = json(retry.body());
        assertThat(body.get("resumed").asBoolean()).isTrue();
        assertThat(body.get("attempt").asInt()).isEqualTo(2);
        assertThat(app.effects().count(item + "/reserve")).as("the finished phase did not run again").isEqualTo(1);
        assertThat(app.effects().count(item + "/charge")).as("the unfinished phase ran again").isEqualTo(2);
        assertThat(app.effects().notes(item + "/charge")).as("with the same downstream key").hasSize(2)
                .containsOnly(app.effects().notes(item + "/charge").get(0));
        assertThat(app.effects().notes(item + "/charge").get(0)).as("a digest: neither key nor principal leaves the service")
                .doesNotContain(key);
        assertThat(replayed(replay)).isTrue();
        assertThat(replay.body()).isEqualTo(retry.body());
    }

    @Test
    void countersMoveWithClaimsReplaysMismatchesConflictsAndTakeovers() throws Exception {
        double acquired = app.claims("acquired");
        double replayed = app.claims("replayed");
        double mismatch = app.claims("mismatch");
        double conflict = app.claims("in_progress");
        double takeover = app.claims("takeover");
        String key = fresh("metrics");
        String item = fresh("metrics-item");

        send(post("/orders", key, itemJson(item)).build());                      // acquired
        send(post("/orders", key, itemJson(item)).build());                      // replayed
        send(post("/orders", key, itemJson(fresh("other"))).build());            // mismatch
        String busyKey = fresh("metrics-busy");
        String busyItem = fresh("metrics-busy-item");
        app.gate().arm();
        try {
            var running = CLIENT.sendAsync(post("/reject", busyKey, itemJson(busyItem)).build(), HttpResponse.BodyHandlers.ofString()); // acquired
            app.gate().awaitEntered();
            send(post("/reject", busyKey, itemJson(busyItem)).build());          // conflict
            app.gate().release();
            running.join();
        } finally {
            app.gate().release();
        }
        String phasedKey = fresh("metrics-phased");
        String phasedItem = fresh("metrics-phased-item");
        send(post("/phased", phasedKey, itemJson(phasedItem)).build());          // acquired, fails after a phase
        send(post("/phased", phasedKey, itemJson(phasedItem)).build());          // takeover: resumes

        assertThat(app.claims("acquired") - acquired).isEqualTo(3);
        assertThat(app.claims("replayed") - replayed).isEqualTo(1);
        assertThat(app.claims("mismatch") - mismatch).isEqualTo(1);
        assertThat(app.claims("in_progress") - conflict).isEqualTo(1);
        assertThat(app.claims("takeover") - takeover).isEqualTo(1);
    }
}

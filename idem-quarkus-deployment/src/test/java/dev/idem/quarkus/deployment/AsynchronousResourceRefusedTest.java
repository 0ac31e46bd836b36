package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jakarta.rest.Idempotent;
import dev.idem.testing.RealServices;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The build refuses, naming each, the {@code @Idempotent} methods the filters cannot cover safely. */
class AsynchronousResourceRefusedTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ReactiveOrders.class, EventLoopOrders.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .assertException(failure -> assertThat(messages(failure))
                    .contains("ReactiveOrders#uni (it returns Uni)")
                    .contains("ReactiveOrders#stage (it returns CompletionStage)")
                    .contains("ReactiveOrders#onTheEventLoop (it is @NonBlocking: it runs on the event loop)")
                    .contains("ReactiveOrders#suspended (its response is sent later, through AsyncResponse)")
                    .contains("EventLoopOrders#inherited (it is @NonBlocking: it runs on the event loop)")
                    .doesNotContain("ReactiveOrders#blocking")
                    .doesNotContain("EventLoopOrders#onAWorker"));

    @Test
    void theBuildFailsNamingEachMethodThatIsNotSynchronousAndBlocking() {
        // The application never starts: the extension's assertion on the build's failure is the test.
    }

    static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
            for (Throwable suppressed : t.getSuppressed()) {
                all.append(messages(suppressed));
            }
        }
        return all.toString();
    }

    @Path("/reactive")
    @Idempotent
    public static class ReactiveOrders {
        @POST
        @Path("/uni")
        public Uni<String> uni() {
            return Uni.createFrom().item("done");
        }

        @POST
        @Path("/stage")
        public CompletionStage<String> stage() {
            return java.util.concurrent.CompletableFuture.completedFuture("done");
        }

        @POST
        @Path("/event-loop")
        @NonBlocking
        public String onTheEventLoop() {
            return "done";
        }

        @POST
        @Path("/suspended")
        public void suspended(@Suspended AsyncResponse response) {
            response.resume("done");
        }

        @POST
        @Path("/blocking")
        public String blocking() {
            return "done";
        }
    }

    /** Non-blocking by its class: its methods run on the event loop unless they say @Blocking. */
    @Path("/event-loop")
    @NonBlocking
    public static class EventLoopOrders {
        @POST
        @Path("/inherited")
        @Idempotent
        public String inherited() {
            return "done";
        }

        @POST
        @Path("/worker")
        @Idempotent
        @Blocking
        public String onAWorker() {
            return "done";
        }
    }
}

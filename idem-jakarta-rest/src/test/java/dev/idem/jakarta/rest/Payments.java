package dev.idem.jakarta.rest;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The resource of the contract: counts its runs; one instance per test, shared by the servers it starts. */
@Path("/payments")
public class Payments {
    static final int LARGE_BYTES = 32 * 1024 * 1024;
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger plainRuns = new AtomicInteger();
    /** Counted down when the slow method has begun; it then waits for {@link #release}. */
    final CountDownLatch slowEntered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    /** The failing method throws while this is above zero, counting it down. */
    final AtomicInteger failures = new AtomicInteger(1);

    @POST
    @Idempotent
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response create(String body) {
        return created(runs.incrementAndGet(), body);
    }

    @POST
    @Path("slow")
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Response slow(String body) throws InterruptedException {
        int run = runs.incrementAndGet();
        slowEntered.countDown();
        if (!release.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the slow request");
        }
        return created(run, body);
    }

    @POST
    @Path("fails")
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Response fails(String body) {
        int run = runs.incrementAndGet();
        if (failures.getAndDecrement() > 0) {
            throw new IllegalStateException("the payment provider is down (test)");
        }
        return created(run, body);
    }

    /** Refuses with the status of the query parameter, through the application's {@link Declined.Mapper}. */
    @POST
    @Path("declined")
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Response declined(@jakarta.ws.rs.QueryParam("status") int status) {
        runs.incrementAndGet();
        throw new Declined(status);
    }

    @POST
    @Path("optional")
    @Idempotent(keyRequired = false)
    @Produces(MediaType.APPLICATION_JSON)
    public Response optional(String body) {
        return created(runs.incrementAndGet(), body);
    }

    /** An entity of {@link #LARGE_BYTES}, over the engine's 8 MiB cap, written in chunks as a download would be. */
    @POST
    @Path("large")
    @Idempotent
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    public Response large(String body) {
        runs.incrementAndGet();
        jakarta.ws.rs.core.StreamingOutput entity = out -> {
            byte[] chunk = new byte[64 * 1024];
            for (int written = 0; written < LARGE_BYTES; written += chunk.length) {
                out.write(chunk);
            }
        };
        return Response.ok(entity).build();
    }

    /** A path parameter with a regular expression: the route is {@code /payments/{id}/capture} whatever the id. */
    @POST
    @Path("/{id: [0-9]+}/capture/")
    @Idempotent
    @Produces(MediaType.APPLICATION_JSON)
    public Response capture(@jakarta.ws.rs.PathParam("id") String id, String body) {
        return created(runs.incrementAndGet(), body);
    }

    /** A sub-resource locator: the route of what it leads to is known per request only, so the scope names the path. */
    @Path("{id}/refunds")
    public Refunds refunds() {
        return new Refunds(this);
    }

    /** The sub-resource of {@link #refunds}; no {@code @Path} of its own. */
    public static class Refunds {
        private final Payments payments;

        Refunds(Payments payments) {
            this.payments = payments;
        }

        @POST
        @Idempotent
        @Produces(MediaType.APPLICATION_JSON)
        public Response refund(String body) {
            return created(payments.runs.incrementAndGet(), body);
        }
    }

    @POST
    @Path("plain")
    @Produces(MediaType.APPLICATION_JSON)
    public Response plain(String body) {
        return Response.ok("{\"plain\":" + plainRuns.incrementAndGet() + "}").build();
    }

    private static Response created(int run, String body) {
        String json = "{\"run\":" + run + ",\"received\":" + tools.jackson.databind.json.JsonMapper.shared().writeValueAsString(body) + "}";
        return Response.created(URI.create("/payments/" + run))
                .header("X-Handler-Run", run)
                .cookie(new NewCookie.Builder("session").value("s" + run).build())
                .entity(json)
                .build();
    }
}

package dev.idem.demo.payments;

import dev.idem.Idem;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The demo's payments service: {@code java -jar payments-service.jar [--flag=value ...]}; see {@link #USAGE}.
 */
@SpringBootApplication
public class PaymentsApplication {
    private static final Logger LOG = LoggerFactory.getLogger(PaymentsApplication.class);

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: payments-service [--flag=value ...]",
            "The idem demo's payments service: POST /payments {amount, currency, card} with an optional Idempotency-Key,",
            "GET /payments/{id}, GET /actuator/health. The charge runs as phases (payment row, gateway charge with a derived",
            "downstream key, marked paid, response stored), so a retry after a crash resumes instead of charging twice.",
            "",
            "  --server.port=8080          port to listen on (0: any free one); address --server.address=127.0.0.1",
            "  --gateway.url=URL           the card gateway (default " + DemoSettings.DEFAULT_GATEWAY_URL + ")",
            "  --gateway.timeout=10s       longest wait for one gateway answer",
            "  --data-dir=DIR              SQLite file and crash markers (default " + DemoSettings.DEFAULT_DATA_DIR + ")",
            "  --db=JDBC_URL               PostgreSQL instead of SQLite, e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            "                              (default: environment variable " + DemoSettings.DB_ENVIRONMENT_VARIABLE + ", else SQLite)",
            "  --idem.lease=2s             how long a crashed request holds its key before a retry takes over",
            "  --variant=V                 " + Variant.allowed() + " (default correct);",
            "                              the other two are DELIBERATELY BROKEN, for the lab",
            "  --crash-at=POINT            halt the first time a payment reaches POINT (once per --data-dir):",
            "                              " + CrashPoint.allowed(),
            "  --events.kafka=HOST:PORT    publish payment.paid events through the outbox to this Kafka broker (default: none)",
            "  --events.topic=NAME         their topic (default " + DemoSettings.DEFAULT_EVENTS_TOPIC + ")",
            "  --coalesce=on|off|dialect   coalesced commits of the idempotency store forced on or off (default dialect:",
            "                              on for SQLite, off for PostgreSQL)",
            "  --fault.pool-pressure=true  a fault: every payment handler holds an extra pool connection (default false;",
            "                              POST /internal/faults/pool-pressure?millis=N turns it on for a while)",
            "  GET /internal/counters      the engine's events in this process: claims, takeovers, replays, leases lost, ...",
            "  -h, --help                  this text");

    public static void main(String[] args) {
        if (Arrays.stream(args).anyMatch(a -> a.equals("--help") || a.equals("-h"))) {
            System.out.println(USAGE);
            return;
        }
        // The service's own flags are checked before Spring starts, so a typo gets one line, not a stack trace.
        StandardEnvironment flags = new StandardEnvironment();
        flags.getPropertySources().addFirst(new SimpleCommandLinePropertySource(args));
        try {
            DemoSettings.from(flags);
        } catch (IllegalArgumentException e) {
            System.err.println("payments-service: " + e.getMessage() + " (--help lists the flags)");
            System.exit(2);
        }
        SpringApplication.run(PaymentsApplication.class, args);
    }

    @EventListener
    void ready(ApplicationReadyEvent event) {
        DemoSettings settings = event.getApplicationContext().getBean(DemoSettings.class);
        Idem idem = event.getApplicationContext().getBean(Idem.class);
        int port = event.getApplicationContext() instanceof WebServerApplicationContext web ? web.getWebServer().getPort() : -1;
        long uptime = ManagementFactory.getRuntimeMXBean().getUptime();
        String broken = settings.variant().deliberatelyBroken() ? " — DELIBERATELY BROKEN: " + settings.variant().brokenBecause() : "";
        LOG.info("payments-service listening on port {} (variant {}{}; {}; gateway {}; idem lease {}) ready in {} ms", port,
                settings.variant().flag(), broken, settings.databaseLabel(), settings.gatewayUrl(), idem.lease(), uptime);
    }
}

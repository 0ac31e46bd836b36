package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.demo.gateway.CardGatewayMain;
import dev.idem.demo.lab.Catalogue;
import dev.idem.demo.lab.Components;
import dev.idem.demo.lab.FleetCoalesce;
import dev.idem.demo.lab.FleetFigures;
import dev.idem.demo.lab.FleetSettings;
import dev.idem.demo.lab.JavaApp;
import dev.idem.demo.lab.Lab;
import dev.idem.demo.lab.LabReport;
import dev.idem.demo.lab.LabSettings;
import dev.idem.demo.lab.PatternResult;
import dev.idem.demo.lab.SideResult;
import dev.idem.demo.proxy.FaultProxyMain;
import dev.idem.testing.RealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab's fleet row, short: three packaged payments-service instances on one PostgreSQL behind the
 * fault proxy as a balancer, under a nemesis that injects every kind of fault once (SIGKILL and a
 * supervisor restart, a SIGSTOP past the lease, terminated database connections, a database
 * blackhole, pool pressure, gateway latency). Over the whole history every must-be-0 figure is 0 (no
 * request answered 500 among them); the control fleet (each instance its own in-memory store) is
 * flagged. The fleet is mixed, as a rolling configuration change leaves one: instance 1's store
 * coalesces commits, the others' do not (PostgreSQL's default).
 */
class FleetLabIT {
    private static final FleetSettings SHORT = new FleetSettings(3, 200, 12, 30, 1, 1, 1, 1, 1, 1, "test", FleetCoalesce.MIXED);

    @TempDir
    Path out;

    @Test
    @Timeout(600)
    void aFleetUnderEveryKindOfFaultChargesEachPaymentOnceAndTheControlFleetIsFlagged() throws Exception {
        String postgres = RealServices.postgresUrl();
        String classPath = System.getProperty("java.class.path");
        Components components = new Components(
                JavaApp.mainClass("card gateway", JavaApp.SMALL_JVM, classPath, CardGatewayMain.class.getName()),
                JavaApp.jar("payments service", JavaApp.SERVICE_JVM, ServiceProcess.jar()),
                JavaApp.mainClass("fault proxy", JavaApp.SMALL_JVM, classPath, FaultProxyMain.class.getName()));
        LabSettings settings = new LabSettings(40, 4, 1, 5, postgres, out, Catalogue.select(List.of("fleet")), SHORT);
        LabReport report = new Lab(settings, components, System.out).run();

        PatternResult fleet = report.patterns().get(0);
        assertThat(fleet.skipped()).as("PostgreSQL answered, so the fleet ran").isNull();
        SideResult control = fleet.sides().get(0);
        SideResult idem = fleet.sides().get(1);

        FleetFigures broken = control.fleet();
        assertThat(broken.chargedTwice()).as("control: instances with their own in-memory stores charge retries again").isPositive();
        assertThat(control.asExpected()).as("the checker flags the control fleet").isTrue();

        FleetFigures f = idem.fleet();
        assertThat(f.payments()).isEqualTo(200);
        assertThat(f.chargedTwice()).as("charged twice").isZero();
        assertThat(f.okWithoutCharge()).as("2xx without a charge").isZero();
        assertThat(f.bodiesDiffer()).as("keys whose 2xx bodies differ").isZero();
        assertThat(f.chargeNotOnRow()).as("2xx whose charge is not on the payment row").isZero();
        assertThat(f.twoRowsPerKey()).as("two payment rows for one key").isZero();
        assertThat(f.unaskedCharges()).as("charges nobody asked for").isZero();
        assertThat(f.answered500()).as("answers 500, which look final (failures safe to retry are 503 or 409): %s; the instances logged: %s",
                f.failures(), unexpectedFailures()).isZero();
        for (String kind : List.of("sigkill", "sigstop", "pg-terminate", "pg-blackhole", "pool-pressure", "gateway-latency")) {
            assertThat(f.count(kind)).as("the nemesis injected " + kind).isEqualTo(1);
        }
        assertThat(f.count("exited")).as("the supervisor saw the SIGKILLed instance exit").isPositive();
        assertThat(f.counter("claims")).as("the instances' counters were read").isPositive();
        assertThat(f.requests()).as("lost responses were retried").isGreaterThan(f.payments());
        assertThat(f.coalescing()).as("instance 1 forced on, the others PostgreSQL's default")
                .containsEntry("instance-1", "on (--coalesce=on)").containsEntry("instance-2", "off (--coalesce=dialect)")
                .containsEntry("instance-3", "off (--coalesce=dialect)");
        assertThat(idem.asExpected()).isTrue();
        assertThat(Files.readString(out.resolve(Lab.HTML_FILE))).contains("2xx per second and the nemesis", "sigkill");
        assertThat(Files.readString(out.resolve(Lab.JSON_FILE))).contains("\"chargedTwice\"", "\"timeline\"", "\"takeovers\"");
    }

    /** The idem fleet's lines about unexpected failures (the exception classes behind a 500), for a failure's message. */
    private String unexpectedFailures() {
        try (java.util.stream.Stream<Path> logs = Files.list(out.resolve("logs"))) {
            return logs.filter(log -> log.getFileName().toString().startsWith("fleet-idem-instance"))
                    .flatMap(log -> {
                        try {
                            return Files.readAllLines(log).stream().filter(line -> line.contains("failed unexpectedly")
                                    || line.contains("ERROR")).map(line -> log.getFileName() + ": " + line);
                        } catch (java.io.IOException e) {
                            return java.util.stream.Stream.of(log.getFileName() + ": unreadable (" + e + ")");
                        }
                    })
                    .limit(20).toList().toString();
        } catch (java.io.IOException e) {
            return "no logs (" + e + ")";
        }
    }
}

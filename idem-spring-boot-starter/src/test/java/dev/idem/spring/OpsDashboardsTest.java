package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.app.Outage;
import dev.idem.spring.internal.OperatorGauges;
import dev.idem.spring.internal.listener.ListenerMeters;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Grafana dashboard ({@code ops/grafana/idem-dashboard.json}) and the Prometheus alert rules
 * ({@code ops/prometheus/idem-alerts.yml}) parse, and every metric their queries name is one of idem's
 * meters (or Spring Boot's {@code http.server.requests}, for the 503s of idem's filter) that a running
 * starter application registers, under the names a Prometheus registry gives them: the application
 * serves fresh keys, replays, a mismatch and an outage's 503, one listener delivery is counted through
 * the starter's own listener meters, and the names are read from the application's registry. So a
 * renamed meter, or a query with a typo, fails the build instead of leaving a panel empty.
 */
class OpsDashboardsTest {
    private static final Path DASHBOARD = Path.of("..", "ops", "grafana", "idem-dashboard.json");
    private static final Path ALERTS = Path.of("..", "ops", "prometheus", "idem-alerts.yml");
    /** PromQL words that are neither functions (followed by "(") nor metrics. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan");
    private static final Pattern LABEL_VALUE = Pattern.compile("\\b(outcome)\\s*=~?\\s*\"([^\"]*)\"");

    private static TestApp app;
    private static Set<String> registered;

    @BeforeAll
    static void runTheApplication() throws Exception {
        app = TestApp.start(Backend.SQLITE, "--orders.outage-switch=true", "--logging.level.dev.idem.servlet=ERROR");
        String key = AppTest.fresh("ops-key");
        String item = AppTest.fresh("ops-item");
        assertThat(post(key, item).statusCode()).isEqualTo(201);
        assertThat(post(key, item).statusCode()).as("a replay").isEqualTo(201);
        assertThat(post(key, AppTest.fresh("other-item")).statusCode()).as("a mismatch").isEqualTo(422);
        Outage outage = app.context.getBean(Outage.class);
        outage.begin();
        try {
            assertThat(post(AppTest.fresh("ops-outage"), item).statusCode()).as("the store is unavailable").isEqualTo(503);
        } finally {
            outage.end();
        }
        // The listener meters count a delivery as the starter's listener support does.
        app.context.getBean(ListenerMeters.class).delivered("ops-test", "quarantined");
        registered = new TreeSet<>();
        for (Meter meter : app.context.getBean(MeterRegistry.class).getMeters()) {
            registered.addAll(prometheusNames(meter.getId()));
        }
        // This application has no outbox: the outbox gauges' names come from the code that registers them for
        // every outbox bean (IdemAdminEndpointTest reads them in an application that has one).
        SimpleMeterRegistry outboxGauges = new SimpleMeterRegistry();
        OperatorGauges.registerOutbox(outboxGauges, "orders", () -> 0, () -> 0);
        for (Meter meter : outboxGauges.getMeters()) {
            registered.addAll(prometheusNames(meter.getId()));
        }
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    private static java.net.http.HttpResponse<String> post(String key, String item) throws Exception {
        return AppTest.send(HttpRequest.newBuilder(app.uri("/orders")).header("Content-Type", AppTest.JSON)
                .header(AppTest.KEY_HEADER, key).POST(HttpRequest.BodyPublishers.ofString(AppTest.itemJson(item))).build());
    }

    @Test
    void everyMetricTheDashboardQueriesIsOneTheApplicationRegisters() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                expressions.add(target.path("expr").asString());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            String query = variable.path("query").isObject() ? variable.path("query").path("query").asString() : "";
            Matcher labelValues = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)").matcher(query);
            if (labelValues.find()) {
                expressions.add(labelValues.group(1));
            }
        }
        assertThat(dashboard.path("title").asString()).isNotBlank();
        assertThat(expressions).as("the dashboard's queries").hasSizeGreaterThanOrEqualTo(10).allSatisfy(e -> assertThat(e).isNotBlank());
        assertNamesRegistered("dashboard", expressions);
    }

    @Test
    void everyMetricTheAlertRulesQueryIsOneTheApplicationRegisters() throws IOException {
        Map<String, Object> rules;
        try (InputStream in = Files.newInputStream(ALERTS)) {
            rules = new Yaml().load(in);
        }
        List<String> expressions = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Object group : (List<?>) rules.get("groups")) {
            for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                Map<?, ?> r = (Map<?, ?>) rule;
                names.add((String) r.get("alert"));
                expressions.add((String) r.get("expr"));
                assertThat(((Map<?, ?>) r.get("annotations")).get("summary")).as(r.get("alert") + ": summary").isNotNull();
            }
        }
        assertThat(names).as("one alert per concern").contains("IdemLeaseLost", "IdemTakeoversRising", "IdemQuarantineGrowing",
                "IdemSweeperLagging", "IdemSweeperFailing", "IdemStoreUnavailable").doesNotHaveDuplicates();
        assertNamesRegistered("alert rules", expressions);
    }

    @Test
    void theMetricNamesAreFoundInExpressionsAsPromqlReadsThem() {
        assertThat(metricNames("sum by (operation) (rate(idem_claims_total{outcome=\"takeover\", job=~\"$job\"}[$__rate_interval]))"
                + " / clamp_min(sum(rate(http_server_requests_seconds_count[5m])), 1e-9) > 0.2 unless max(idem_sweeper_lag_seconds) == 1"))
                .containsExactly("idem_claims_total", "http_server_requests_seconds_count", "idem_sweeper_lag_seconds");
    }

    private static void assertNamesRegistered(String file, List<String> expressions) {
        Set<String> named = new TreeSet<>();
        for (String expression : expressions) {
            named.addAll(metricNames(expression));
            Matcher outcome = LABEL_VALUE.matcher(expression);
            while (outcome.find()) {
                for (String value : outcome.group(2).split("\\|")) {
                    assertThat(value).as(file + ": an outcome idem counts, in " + expression)
                            .isIn("acquired", "takeover", "replayed", "in_progress", "mismatch", "processed", "duplicate", "quarantined", "failed");
                }
            }
        }
        assertThat(named).as(file + ": metrics named").isNotEmpty();
        // idem counts no HTTP answers itself: its filter's 503s are read from Spring Boot's http.server.requests, the one other meter.
        assertThat(named).as(file + ": idem's meters, and Spring Boot's request timer for the 503s")
                .allSatisfy(name -> assertThat(name.startsWith("idem_") || name.equals("http_server_requests_seconds_count")).as(name).isTrue());
        assertThat(registered).as(file + ": every metric it names is registered by the running application").containsAll(named);
    }

    /** The metric names in a PromQL expression: identifiers outside label matchers, ranges and grouping clauses, not called as functions. */
    static Set<String> metricNames(String expression) {
        String bare = expression.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^\\]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
                .replaceAll("\\$[A-Za-z_]+", " ")
                .replaceAll("(?<![A-Za-z_:])\\d+(\\.\\d+)?([eE][-+]?\\d+)?", " ");
        Set<String> names = new LinkedHashSet<>();
        Matcher identifier = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*(?!\\s*\\()").matcher(bare);
        while (identifier.find()) {
            String word = identifier.group();
            // The lookahead backs off inside a function's name ("rat" of "rate("): keep whole words only.
            int end = identifier.end();
            if (end < bare.length() && (Character.isLetterOrDigit(bare.charAt(end)) || bare.charAt(end) == '_')) {
                continue;
            }
            if (!KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                names.add(word);
            }
        }
        return names;
    }

    /** The names a Prometheus registry exposes for a meter (Micrometer's Prometheus naming: snake case, the base unit, _total). */
    static Set<String> prometheusNames(Meter.Id id) {
        String name = NamingConvention.snakeCase.name(id.getName(), id.getType(), id.getBaseUnit());
        String unit = id.getBaseUnit() == null ? "" : "_" + id.getBaseUnit();
        String base = name.endsWith(unit) ? name : name + unit;
        return switch (id.getType()) {
            case COUNTER -> Set.of(base.endsWith("_total") ? base : base + "_total");
            case TIMER, LONG_TASK_TIMER, DISTRIBUTION_SUMMARY -> Set.of(base + "_count", base + "_sum", base + "_max", base + "_bucket");
            default -> Set.of(base);
        };
    }
}

package dev.idem.demo.lab;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The report's data as JSON: settings, the figures of every scenario, and the replay sample. */
final class JsonReport {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private JsonReport() {
    }

    static String render(LabReport report) {
        ObjectNode root = JSON.createObjectNode();
        root.put("startedAt", report.startedAt().toString());
        root.put("seconds", report.millis() / 1000.0);
        ObjectNode settings = root.putObject("settings");
        settings.put("paymentsPerScenario", report.settings().payments());
        settings.put("concurrency", report.settings().concurrency());
        settings.put("killsPerKillScenario", report.settings().kills());
        settings.put("seed", report.settings().seed());
        settings.put("database", report.settings().databaseLabel());
        settings.set("fleet", JSON.valueToTree(report.settings().fleet()));
        root.put("allAsExpected", report.allAsExpected());
        ArrayNode scenarios = root.putArray("scenarios");
        for (ScenarioResult result : report.results()) {
            scenarios.add(scenario(result));
        }
        if (report.sample() != null) {
            root.set("replaySample", sample(report.sample()));
        }
        ArrayNode patterns = root.putArray("patterns");
        for (PatternResult result : report.patterns()) {
            patterns.add(pattern(result));
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    private static ObjectNode scenario(ScenarioResult result) {
        Scenario s = result.scenario();
        Figures f = result.figures();
        ObjectNode node = JSON.createObjectNode();
        node.put("id", s.id());
        node.put("client", s.strategy().name().toLowerCase().replace('_', '-'));
        node.put("server", s.variant().id());
        node.put("fault", s.fault().name().toLowerCase().replace('_', '-'));
        node.put("faultDescription", s.fault().label());
        node.put("expectation", s.expectation().label());
        node.put("asExpected", result.asExpected());
        node.put("seconds", result.millis() / 1000.0);
        ObjectNode figures = node.putObject("figures");
        figures.put("payments", f.payments());
        figures.put("requestsSent", f.requestsSent());
        figures.put("charges", f.charges());
        figures.put("lost", f.lost());
        figures.put("chargedMoreThanOnce", f.duplicated());
        figures.put("unconfirmed", f.unconfirmed());
        figures.put("keysWithDifferingReplies", f.differingKeys());
        figures.put("confirmedWithoutCharge", f.confirmedWithoutCharge());
        figures.put("answeredKeyExpired", f.expired());
        figures.put("p50Millis", f.p50Millis());
        figures.put("p99Millis", f.p99Millis());
        ObjectNode histogram = node.putObject("paymentsByCharges");
        f.chargesPerPayment().forEach(histogram::put);
        ObjectNode proxy = node.putObject("proxy");
        result.proxyStats().forEach(proxy::put);
        node.put("serviceKills", result.kills());
        node.put("serviceStarts", result.serviceStarts());
        if (result.ledger() != null) {
            LedgerFigures l = result.ledger();
            node.put("consumer", s.consumer().flag());
            ObjectNode ledger = node.putObject("ledger");
            ledger.put("paid", l.paid());
            ledger.put("entries", l.entries());
            ledger.put("appliedMoreThanOnce", l.duplicatedEntries());
            ledger.put("missing", l.missing());
            ledger.put("consumerKills", l.consumerKills());
            ledger.put("consumerStarts", l.consumerStarts());
        }
        if (result.abandonment() != null) {
            Abandonment a = result.abandonment();
            ObjectNode abandoned = node.putObject("abandoned");
            abandoned.put("gaveUp", a.gaveUp());
            abandoned.put("charged", a.charged());
            abandoned.put("chargedNeverRecorded", a.unrecorded());
            abandoned.put("waitedMillis", a.waitedMillis());
            abandoned.put("lateRetriesReplayed", a.lateReplayed());
            abandoned.put("lateRetriesRan", a.lateRan());
            abandoned.put("lateRetriesOtherwise", a.lateOther());
        }
        return node;
    }

    private static ObjectNode pattern(PatternResult result) {
        PatternRow row = result.row();
        ObjectNode node = JSON.createObjectNode();
        node.put("id", row.id());
        node.put("group", row.group().id());
        node.put("fault", row.fault());
        node.put("items", row.items());
        node.put("wrong", row.wrong());
        node.put("asExpected", result.asExpected());
        node.put("seconds", result.millis() / 1000.0);
        node.put("note", result.note());
        node.put("skipped", result.skipped());
        ArrayNode sides = node.putArray("sides");
        for (SideResult side : result.sides()) {
            ObjectNode s = sides.addObject();
            s.put("side", side.side().label());
            s.put("expected", side.side().expected().label());
            s.put("asExpected", side.asExpected());
            s.put("items", side.items());
            s.put("wrong", side.wrong());
            s.put("sink", side.sink());
            s.put("millis", side.millis());
            if (!Double.isNaN(side.perSecond())) {
                s.put("attemptsPerSecond", side.perSecond());
            }
            if (side.fleet() != null) {
                s.set("fleet", FleetReport.json(side.fleet()));
            }
            if (side.failover() != null) {
                s.set("failover", JSON.valueToTree(side.failover()));
            }
        }
        return node;
    }

    private static ObjectNode sample(ReplaySample sample) {
        ObjectNode node = JSON.createObjectNode();
        node.put("scenario", sample.scenarioId());
        node.put("payment", sample.payment().id());
        node.put("card", sample.payment().card());
        ArrayNode attempts = node.putArray("attempts");
        for (Attempt a : sample.attempts()) {
            ObjectNode attempt = attempts.addObject();
            attempt.put("number", a.number());
            attempt.put("key", a.key());
            attempt.put("startMillis", a.startMillis());
            attempt.put("millis", a.durationMicros() / 1000.0);
            attempt.put("status", a.status());
            attempt.put("failure", a.failure());
            attempt.put("replayed", a.replayed());
            attempt.put("body", a.body());
        }
        ObjectNode charge = node.putObject("charge");
        charge.put("chargeId", sample.charge().chargeId());
        charge.put("gatewayKey", sample.charge().key());
        charge.put("createdAt", sample.charge().createdAt());
        return node;
    }
}

package dev.idem.demo.payments;

import dev.idem.Execution;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The charge, as phases of the request's idem {@link Execution} (lock key → effects → store response):
 *
 * <ol>
 * <li>{@code create}: the payment row, {@code pending}, keyed by the phase's derived key (a re-run
 *     after a crash before the checkpoint finds the same row);</li>
 * <li>{@code charge}: the card gateway, with the phase's <b>derived downstream key</b> as the gateway's
 *     {@code Idempotency-Key}, the same on every attempt, so a repeat after a crash is a replay there;</li>
 * <li>{@code mark-paid}: the row set to {@code paid} with the charge id (a state: harmless to repeat);</li>
 * <li>the 201 answer, which the filter stores before it sends it.</li>
 * </ol>
 *
 * A retry after a crash resumes after the last finished phase. A failure (the gateway's 5xx, no
 * answer) fails the request with 502/503: the key is released if no phase finished, else handed to the
 * next retry, which resumes.
 */
public final class PaymentProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(PaymentProcessor.class);

    private final PaymentRepository payments;
    private final CardGateway gateway;
    private final CrashPoints crashes;
    private final JsonMapper json;
    private final boolean freshGatewayKeys;

    /**
     * @param freshGatewayKeys <b>deliberately broken</b> when true (variant {@code memory-store}): the gateway
     *                         gets a new random key per execution instead of the derived one
     */
    public PaymentProcessor(PaymentRepository payments, CardGateway gateway, CrashPoints crashes, JsonMapper json, boolean freshGatewayKeys) {
        this.payments = payments;
        this.gateway = gateway;
        this.crashes = crashes;
        this.json = json;
        this.freshGatewayKeys = freshGatewayKeys;
        if (freshGatewayKeys) {
            LOG.warn("deliberately broken: the card gateway gets a fresh Idempotency-Key per execution, not the derived downstream key");
        }
    }

    /** A payment under an {@code Idempotency-Key}: phases that a retry resumes. */
    public Payment payOnce(Execution execution, PaymentRequest request) throws Exception {
        // sample: lab-payments-phases (docs/lab.md prints these lines; a test there compares the two)
        crashes.reach(CrashPoint.AFTER_CLAIM);
        String id = execution.phase("create", requestKey -> {             // INSERT … ON CONFLICT DO NOTHING
            String created = payments.createPending(requestKey, request);
            crashes.reach(CrashPoint.AFTER_PAYMENT_ROW);
            return created;
        });
        String chargeId = execution.phase("charge", downstreamKey -> {    // the gateway's Idempotency-Key
            String charged = gateway.charge(freshGatewayKeys ? UUID.randomUUID().toString() : downstreamKey, request);
            crashes.reach(CrashPoint.AFTER_GATEWAY_CALL);
            return charged;
        });
        crashes.reach(CrashPoint.AFTER_CHECKPOINT);
        execution.phase("mark-paid", ignored -> {                         // a state: harmless to repeat
            payments.markPaid(id, chargeId);
            return id;
        });
        // end sample
        if (execution.resumed()) {
            LOG.info("payment resumed after an earlier attempt's last finished phase (attempt {})", execution.attempt());
        }
        return new Payment(id, Payment.PAID, chargeId, request.amount(), request.currency());
    }

    /**
     * A payment without a key: every request is a new payment with its own gateway key. (This is what a
     * client that retries without a key gets: one payment per retry.)
     */
    public Payment payWithoutKey(PaymentRequest request) {
        String id = payments.createPending("unkeyed-" + UUID.randomUUID(), request);
        String chargeId = gateway.charge(UUID.randomUUID().toString(), request);
        payments.markPaid(id, chargeId);
        return new Payment(id, Payment.PAID, chargeId, request.amount(), request.currency());
    }

    /** The answer's body: {@code {"id","status","chargeId","amount","currency"}}, in that order, every time. */
    public byte[] body(Payment payment) {
        ObjectNode node = json.createObjectNode();
        node.put("id", payment.id());
        node.put("status", payment.status());
        if (payment.chargeId() == null) {
            node.putNull("chargeId");
        } else {
            node.put("chargeId", payment.chargeId());
        }
        node.put("amount", payment.amount());
        node.put("currency", payment.currency());
        return json.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
    }
}

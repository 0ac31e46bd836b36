package dev.idem.demo.payments;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InvalidKeyException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.servlet.RequestFingerprinter;
import dev.idem.servlet.ScopeResolver;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Lazy;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * <b>DELIBERATELY BROKEN — variant {@code key-after-effect}, for the lab only.</b>
 *
 * <p>{@code POST /payments} the way a plausible but wrong implementation does it: look the key up; if
 * no response is stored, <em>charge the card first</em> (with a fresh gateway key per execution, as a
 * service that trusts only its own store would), and only then record the key with its response. A
 * crash between the charge and the record (the lab SIGKILLs the process while the gateway answers)
 * leaves a charge with no record: the client's retry charges the card again.
 *
 * <p>It is a separate handler, not {@code @Idempotent}: the starter's filter passes it through, and it
 * uses idem's engine only to record the response after the effect. Compare {@link PaymentsController}.
 */
@RestController
@Lazy(false) // made at startup, so its warning is in the log before the first request
@ConditionalOnExpression("'${variant:correct}' == 'key-after-effect'")
public class KeyAfterEffectPaymentsController {
    private static final Logger LOG = LoggerFactory.getLogger(KeyAfterEffectPaymentsController.class);
    /** The header this handler reads itself (the filter does not cover it). */
    private static final String KEY_HEADER = "Idempotency-Key";

    private final Idem idem;
    private final ScopeResolver scopes;
    private final RequestFingerprinter fingerprinter;
    private final PaymentRepository payments;
    private final CardGateway gateway;
    private final PaymentProcessor processor;
    private final RequestBodies bodies;
    private final JsonMapper json;

    public KeyAfterEffectPaymentsController(Idem idem, ScopeResolver scopes, RequestFingerprinter fingerprinter, PaymentRepository payments,
                                            CardGateway gateway, PaymentProcessor processor, RequestBodies bodies, JsonMapper json) {
        this.idem = idem;
        this.scopes = scopes;
        this.fingerprinter = fingerprinter;
        this.payments = payments;
        this.gateway = gateway;
        this.processor = processor;
        this.bodies = bodies;
        this.json = json;
        LOG.warn("deliberately broken: POST /payments charges the card BEFORE it records the Idempotency-Key (variant key-after-effect)");
    }

    @PostMapping("/payments")
    public ResponseEntity<byte[]> pay(HttpServletRequest request) throws Exception {
        byte[] body = bodies.readJson(request);
        PaymentRequest payment = PaymentRequest.parse(body, json);
        String header = request.getHeader(KEY_HEADER);
        if (header == null) {
            Payment paid = processor.payWithoutKey(payment);
            return PaymentsController.created(paid, processor.body(paid));
        }
        IdempotencyKey key;
        try {
            key = IdempotencyKey.parse(header);
        } catch (InvalidKeyException e) {
            throw PaymentProblem.invalidKey("the Idempotency-Key header is invalid");
        }
        Scope scope = scopes.resolve(request);
        Fingerprint fingerprint = fingerprinter.fingerprint(request, body);

        // 1. Look the key up: a stored response is replayed, a running one is reported; one whose
        //    owner died (lease over) counts as absent, as a fresh key would.
        Optional<IdempotencyRecord> record = idem.store().find(new RecordKey(scope, key));
        if (record.isPresent()) {
            if (!record.get().fingerprint().equals(fingerprint)) {
                throw PaymentProblem.keyMismatch();
            }
            if (record.get().state() == RecordState.COMPLETED) {
                return replay(record.get().response().orElseThrow());
            }
            if (record.get().leaseUntil().isAfter(Instant.now())) {
                throw PaymentProblem.keyInUse(Duration.between(Instant.now(), record.get().leaseUntil()));
            }
        }

        // 2. THE BUG: the effect happens before the key is recorded. A crash from here until step 3
        //    commits leaves a charge that no record knows about; the retry comes back to step 2.
        String id = payments.createPending("key-after-effect-" + UUID.randomUUID(), payment);
        String chargeId = gateway.charge(UUID.randomUUID().toString(), payment);
        payments.markPaid(id, chargeId);
        Payment paid = new Payment(id, Payment.PAID, chargeId, payment.amount(), payment.currency());
        byte[] answer = processor.body(paid);

        // 3. Only now the key is claimed and its response stored.
        Outcome outcome = idem.execute(scope, key, fingerprint,
                run -> StoredResponse.of(201, Map.of("Content-Type", List.of("application/json"), "Location", List.of("/payments/" + id)), answer));
        if (outcome instanceof Outcome.Replayed replayed) {
            return replay(replayed.response());
        }
        if (outcome instanceof Outcome.InProgress inProgress) {
            throw PaymentProblem.keyInUse(inProgress.retryAfter());
        }
        if (outcome instanceof Outcome.Mismatch) {
            throw PaymentProblem.keyMismatch();
        }
        return PaymentsController.created(paid, answer);
    }

    private static ResponseEntity<byte[]> replay(StoredResponse stored) {
        HttpHeaders headers = new HttpHeaders();
        stored.headers().forEach((name, values) -> values.forEach(v -> headers.add(name, v)));
        headers.set("Idempotent-Replayed", "true");
        return ResponseEntity.status(HttpStatus.valueOf(stored.status())).headers(headers).body(stored.body());
    }
}

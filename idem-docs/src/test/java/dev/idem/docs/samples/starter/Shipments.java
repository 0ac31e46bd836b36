package dev.idem.docs.samples.starter;

import dev.idem.Execution;
import dev.idem.spring.IdemMethods;
import dev.idem.spring.IdempotentMethod;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;

/** The @IdempotentMethod sample of docs/http.md: a service method run once per order id, its label made in a phase. */
@Service
public class Shipments {
    private final Carrier carrier = new Carrier();

    // sample: http-starter-method
    @IdempotentMethod(key = "#order.id", fingerprint = "#order.address")   // once per order id
    public Shipment ship(Order order) throws Exception {
        Execution execution = IdemMethods.currentExecution().orElseThrow();
        String label = execution.phase("label", downstreamKey -> carrier.label(downstreamKey, order.address()));
        return new Shipment(order.id(), label);                 // stored as JSON; repeats get it back
    }
    // end sample

    public int labels() {
        return carrier.labels.get();
    }

    public record Order(String id, String address) {
    }

    public record Shipment(String orderId, String label) {
    }

    /** A carrier that makes a new label per call: a second call for one order would be a second parcel. */
    static final class Carrier {
        private final AtomicInteger labels = new AtomicInteger();

        String label(String downstreamKey, String address) {
            return "label-" + labels.incrementAndGet() + " to " + address;
        }
    }
}

package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * An at-least-once delivery schedule, as a broker makes one after consumer crashes and lost acks:
 * every message is delivered, some again once or twice, each repeat at a random later place (a
 * redelivery comes after what was in flight, not right behind the first delivery).
 */
final class Deliveries {
    /** Share of messages delivered more than once. */
    static final double REDELIVERED = 0.4;

    private Deliveries() {
    }

    /** Message indexes {@code 0..messages-1} in delivery order, each at least once. */
    static List<Integer> atLeastOnce(int messages, Random random) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            order.add(i);
        }
        for (int i = 0; i < messages; i++) {
            if (random.nextDouble() >= REDELIVERED) {
                continue;
            }
            int repeats = 1 + random.nextInt(2);
            for (int r = 0; r < repeats; r++) {
                int after = order.lastIndexOf(i) + 1;
                order.add(after + random.nextInt(order.size() - after + 1), i);
            }
        }
        return order;
    }
}

package dev.idem.spring.methods;

import dev.idem.spring.IdempotentMethod;
import java.util.concurrent.atomic.AtomicInteger;

/** One class, several beans (one per currency): {@link MethodApplication} makes an EUR and a USD ledger. */
public class Ledger {
    private final String currency;
    private final AtomicInteger posts = new AtomicInteger();

    public Ledger(String currency) {
        this.currency = currency;
    }

    public String currency() {
        return currency;
    }

    /** The default scope: each bean its own. */
    @IdempotentMethod(key = "#entry")
    public String post(String entry) {
        posts.incrementAndGet();
        return currency + " " + entry;
    }

    /** One explicit scope for every ledger: the key expression tells the beans apart through the target. */
    @IdempotentMethod(key = "#root.target.currency() + ':' + #entry", scope = "ledger-reverse")
    public String reverse(String entry) {
        posts.incrementAndGet();
        return currency + " reversed " + entry;
    }

    public int posts() {
        return posts.get();
    }
}

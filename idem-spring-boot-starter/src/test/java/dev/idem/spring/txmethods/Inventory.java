package dev.idem.spring.txmethods;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** An inner transactional call: failing marks the surrounding transaction rollback-only. */
@Service
public class Inventory {

    @Transactional
    public void reserve(boolean fail) {
        if (fail) {
            throw new IllegalStateException("out of stock");
        }
    }
}

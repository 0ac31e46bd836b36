package dev.idem.spi;

import java.util.Objects;
import java.util.Set;

/**
 * What one {@link IdempotencyStore#renewAll} call did: the leases it renewed and the leases it found
 * lost (the token is no longer the record's). A lease in neither set was not reached this time (its
 * record was busy, or the store failed for it); its owner keeps what it had and the next call tries
 * again.
 */
public record Renewals(Set<HeldLease> renewed, Set<HeldLease> lost) {
    public Renewals {
        renewed = Set.copyOf(Objects.requireNonNull(renewed, "renewed is null"));
        lost = Set.copyOf(Objects.requireNonNull(lost, "lost is null"));
    }
}

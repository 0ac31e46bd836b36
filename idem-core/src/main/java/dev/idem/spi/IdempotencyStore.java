package dev.idem.spi;

import dev.idem.LeaseLostException;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.Optional;

/**
 * Durable storage of idempotency records, one per {@link RecordKey}. The engine owns all policy;
 * a store only has to keep the following contract, which {@code dev.idem.testing.IdempotencyStoreContract}
 * checks against every implementation.
 *
 * <h2>States</h2>
 * <pre>
 * absent ──claim──▶ IN_PROGRESS(token, lease, recovery point) ──complete(token)──▶ COMPLETED(response) ──expiry──▶ absent
 * IN_PROGRESS ──release(token)──▶ absent
 * IN_PROGRESS, lease over ──claim──▶ IN_PROGRESS(token' > token, same recovery point)      (takeover)
 * </pre>
 *
 * <h2>Contract</h2>
 * <ol>
 * <li><b>Atomic claim.</b> Among any number of concurrent {@link #claim} calls for one record, at most
 *     one answers {@link ClaimOutcome.Acquired}; the others answer {@code InProgress}, {@code Replay}
 *     or {@code Mismatch} as the record stands. A store never decides by reading and then writing in
 *     two steps another caller can interleave.</li>
 * <li><b>Fencing.</b> Each acquisition of a record gets a token larger than every earlier token of
 *     that record. {@link #checkpoint}, {@link #complete}, {@link #release} and {@link #renew} take
 *     effect only if the record is IN_PROGRESS with exactly that token; otherwise they change nothing
 *     and throw {@link LeaseLostException}. Holding the current token is enough: an owner whose lease
 *     ran out may still complete as long as nobody took over.</li>
 * <li><b>Leases on the store's clock.</b> Whether a lease is over is judged by the store's own
 *     clock where it has one (the database's {@code now()}, Redis' {@code TIME}), so application
 *     instances with skewed clocks agree.</li>
 * <li><b>Takeover.</b> A claim with the record's fingerprint on an IN_PROGRESS record whose lease is
 *     over acquires it with a larger token and {@code attempt + 1}, and returns the last recovery
 *     point unchanged.</li>
 * <li><b>Fingerprints.</b> A claim whose fingerprint differs from a live record's answers
 *     {@code Mismatch} and changes nothing, whatever the record's state.</li>
 * <li><b>Replay.</b> A claim on a COMPLETED record with the same fingerprint answers {@code Replay}
 *     with the stored response equal, byte for byte, to the one completed (status, headers in order,
 *     body), including empty bodies and bodies of several MiB.</li>
 * <li><b>Expiry.</b> A record whose retention has passed (and, if IN_PROGRESS, whose lease is over)
 *     behaves as absent for {@link #claim} and {@link #find}; {@link #purge} deletes such records
 *     and only those.</li>
 * <li><b>Atomic writes.</b> Every operation either fully happens or not at all. A failure to reach
 *     the store throws {@link StoreException} and leaves no partial record.</li>
 * </ol>
 *
 * <p>Implementations are thread-safe. Arguments are validated by the value types; stores need not
 * check them again.
 */
public interface IdempotencyStore extends Purgeable {

    /** Tries to own the record; see the class contract for the four answers. */
    ClaimOutcome claim(ClaimRequest request);

    /**
     * Stores where a resumed owner should continue. Replaces any earlier recovery point.
     *
     * @throws LeaseLostException if {@code token} is not the record's current token
     */
    void checkpoint(RecordKey id, long token, RecoveryPoint point);

    /**
     * Stores the response, ends the lease and keeps the record for {@code retention} from now.
     *
     * @throws LeaseLostException if {@code token} is not the record's current token
     */
    void complete(RecordKey id, long token, StoredResponse response, Duration retention);

    /**
     * Deletes the record so that the next claim starts afresh: for a failure before any side effect.
     *
     * @throws LeaseLostException if {@code token} is not the record's current token
     */
    void release(RecordKey id, long token);

    /**
     * Sets the lease to end {@code lease} from now. {@link Duration#ZERO} ends it at once, which hands
     * the record and its recovery point to the next claimer (yield after a failure past a checkpoint).
     *
     * @throws LeaseLostException if {@code token} is not the record's current token
     */
    void renew(RecordKey id, long token, Duration lease);

    /**
     * Renews many leases at once, each to {@code lease} from now on the store's clock, as
     * {@link #renew} would one by one: the engine calls it once per tick for every lease its owners
     * hold. It must not let one lease hold up the others: a record another transaction has locked,
     * or a failure for one lease, leaves that lease out of the answer (neither renewed nor lost) and
     * the rest are renewed. It should return well within a third of {@code lease}; a store with its
     * own connections renews on connections the application's work cannot exhaust.
     *
     * <p>The default renews one by one and keeps going past failures.
     *
     * @return the leases renewed and the leases found lost
     */
    default Renewals renewAll(Collection<HeldLease> leases, Duration lease) {
        Set<HeldLease> renewed = new HashSet<>();
        Set<HeldLease> lost = new HashSet<>();
        for (HeldLease held : leases) {
            try {
                renew(held.id(), held.token(), lease);
                renewed.add(held);
            } catch (LeaseLostException e) {
                lost.add(held);
            } catch (RuntimeException e) {
                // Not reached this time; its owner's last confirmed lease still stands.
            }
        }
        return new Renewals(renewed, lost);
    }

    /**
     * Called by the engine before an owner starts work whose lease it will renew, on the caller's
     * thread: a store that renews on resources of its own (a reserved connection) acquires them here,
     * so a later renewal never waits for the application's pool. The default does nothing.
     */
    default void prepareRenewals() {
    }

    /**
     * Deletes up to {@code limit} expired records (see Expiry) and returns how many it deleted. A
     * return below {@code limit} means none were left at that moment. Never deletes a live record.
     */
    int purge(int limit);

    /** The record as it stands, or empty if absent or expired. */
    Optional<IdempotencyRecord> find(RecordKey id);

    /**
     * What an operator may ask of this store (look at a record, list the stuck ones, release one), or
     * empty if it offers none. The engine never calls it; an admin endpoint does, after its own
     * authorisation. A store that answers returns the same object on every call, working on this
     * store's records and clock and keeping the {@link StoreAdministration} contract. The default
     * answers empty: a store need not offer administration.
     */
    default Optional<StoreAdministration> administration() {
        return Optional.empty();
    }
}

package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class IdemEngineTest {

    /** Distinctive, so that a message or downstream key that leaks it is easy to spot. */
    private static final String KEY_VALUE = "secret-key-value-123";

    private final FakeStore store = new FakeStore();
    private final RecordingListener events = new RecordingListener();
    private final Scope scope = Scope.of("alice", "POST /payments");
    private final IdempotencyKey key = IdempotencyKey.of(KEY_VALUE);
    private final RecordKey id = new RecordKey(scope, key);
    private final Fingerprint fingerprint = fingerprint("{\"amount\":100}");
    private final AtomicInteger runs = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** Lease renewal is off unless a test is about it: its timer would otherwise write to the store. */
    private final Idem idem = Idem.builder().store(store).listener(events).renewLeases(false).build();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static Fingerprint fingerprint(String body) {
        return Fingerprint.builder().part("method", "POST").part("body", body).build();
    }

    private static StoredResponse response(int status, String body) {
        return StoredResponse.of(status, Map.of("Content-Type", List.of("text/plain")), body.getBytes(StandardCharsets.UTF_8));
    }

    /** An operation that counts its runs and answers 201. */
    private Operation counting(String body) {
        return execution -> {
            runs.incrementAndGet();
            return response(201, body);
        };
    }

    private Outcome execute(Operation operation) {
        return idem.execute(scope, key, fingerprint, operation);
    }

    @Nested
    @DisplayName("first call and replays")
    class Replays {

        @Test
        @DisplayName("the first call runs the operation and stores its response")
        void firstCallExecutes() {
            Outcome outcome = execute(counting("paid"));

            assertThat(outcome).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(runs).hasValue(1);
            IdempotencyRecord record = store.find(id).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(record.response()).contains(response(201, "paid"));
            assertThat(events.events()).containsExactly("claimed 1");
        }

        @Test
        @DisplayName("a repeat with the same key and fingerprint replays the response without running the operation")
        void repeatReplays() {
            Outcome first = execute(counting("paid"));
            Outcome second = execute(counting("paid again"));

            assertThat(second).isInstanceOf(Outcome.Replayed.class);
            assertThat(((Outcome.Replayed) second).response()).isEqualTo(((Outcome.Executed) first).response());
            assertThat(runs).hasValue(1);
            assertThat(events.events()).containsExactly("claimed 1", "replayed");
        }

        @Test
        @DisplayName("a 4xx is the answer to that request: it is stored and replayed")
        void clientErrorIsStored() {
            Outcome first = execute(execution -> response(422, "card declined"));
            Outcome second = execute(counting("unused"));

            assertThat(first).isEqualTo(new Outcome.Executed(response(422, "card declined"), true, 1));
            assertThat(second).isEqualTo(new Outcome.Replayed(response(422, "card declined")));
            assertThat(runs).hasValue(0);
        }

        @Test
        @DisplayName("the same key with another fingerprint is a mismatch and runs nothing")
        void otherFingerprintMismatches() {
            execute(counting("paid"));

            Outcome outcome = idem.execute(scope, key, fingerprint("{\"amount\":999}"), counting("other"));

            assertThat(outcome).isEqualTo(new Outcome.Mismatch());
            assertThat(runs).hasValue(1);
            assertThat(store.find(id).orElseThrow().response()).contains(response(201, "paid"));
            assertThat(events.events()).containsExactly("claimed 1", "mismatch");
            assertThat(events.scopes()).containsOnly(scope);
        }

        @Test
        @DisplayName("the same key under another principal is another record: it runs, and never sees the first response")
        void otherPrincipalIsIndependent() {
            execute(counting("alice's payment"));

            Outcome bob = idem.execute(Scope.of("bob", "POST /payments"), key, fingerprint, counting("bob's payment"));

            assertThat(bob).isEqualTo(new Outcome.Executed(response(201, "bob's payment"), true, 1));
            assertThat(runs).hasValue(2);
        }

        @Test
        @DisplayName("the execution tells the operation its scope, attempt and that it is not resumed")
        void executionView() {
            AtomicReference<String> seen = new AtomicReference<>();

            execute(execution -> {
                seen.set(execution.scope() + "|" + execution.attempt() + "|" + execution.resumed());
                return response(200, "");
            });

            assertThat(seen).hasValue("alice POST /payments|1|false");
        }
    }

    @Nested
    @DisplayName("failures before any phase finished")
    class FailuresBeforeAPhase {

        @Test
        @DisplayName("an unchecked exception propagates unchanged and releases the key, so a retry runs again")
        void uncheckedExceptionReleases() {
            IllegalArgumentException boom = new IllegalArgumentException("gateway refused");

            Throwable thrown = catchThrowable(() -> execute(execution -> {
                runs.incrementAndGet();
                throw boom;
            }));

            assertThat(thrown).isSameAs(boom);
            assertThat(store.find(id)).isEmpty();
            assertThat(store.calls()).containsExactly("claim", "release");

            assertThat(execute(counting("paid"))).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(runs).hasValue(2);
        }

        @Test
        @DisplayName("a checked exception is wrapped in OperationFailedException, naming the scope but not the key")
        void checkedExceptionIsWrapped() {
            IOException boom = new IOException("connection reset");

            Throwable thrown = catchThrowable(() -> execute(execution -> {
                throw boom;
            }));

            assertThat(thrown).isInstanceOf(OperationFailedException.class).hasCause(boom);
            assertThat(thrown.getCause()).isSameAs(boom);
            assertThat(thrown.getMessage()).contains("alice POST /payments").doesNotContain(KEY_VALUE);
            assertThat(store.find(id)).isEmpty();
            assertThat(execute(counting("paid"))).isInstanceOf(Outcome.Executed.class);
        }

        @Test
        @DisplayName("an Error propagates unchanged and still releases the key")
        void errorReleases() {
            AssertionError boom = new AssertionError("bug");

            Throwable thrown = catchThrowable(() -> execute(execution -> {
                throw boom;
            }));

            assertThat(thrown).isSameAs(boom);
            assertThat(store.find(id)).isEmpty();
        }

        @Test
        @DisplayName("a 5xx is returned but not stored, and the key is released so a retry runs again")
        void serverErrorIsNotStored() {
            Outcome first = execute(execution -> {
                runs.incrementAndGet();
                return response(503, "try later");
            });

            assertThat(first).isEqualTo(new Outcome.Executed(response(503, "try later"), false, 1));
            assertThat(store.find(id)).isEmpty();
            assertThat(store.calls()).containsExactly("claim", "release");

            assertThat(execute(counting("paid"))).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(runs).hasValue(2);
        }

        @Test
        @DisplayName("a custom storage policy decides what is stored")
        void customStoragePolicy() {
            Idem only2xx = idem.toBuilder().storagePolicy(StoragePolicy.storeStatuses(s -> s / 100 == 2, "2xx")).build();

            Outcome outcome = only2xx.execute(scope, key, fingerprint, execution -> response(404, "no such card"));

            assertThat(outcome).isEqualTo(new Outcome.Executed(response(404, "no such card"), false, 1));
            assertThat(store.find(id)).isEmpty();
        }

        @Test
        @DisplayName("a response the operation returns declined is not stored, whatever the policy, and the key is released")
        void aDeclinedResponseIsNotStored() {
            Idem storingAll = idem.toBuilder().storagePolicy(StoragePolicy.storingAll()).build();
            StoredResponse declined = StoragePolicy.declined(response(201, "paid"));

            Outcome outcome = storingAll.execute(scope, key, fingerprint, execution -> declined);

            assertThat(outcome).isEqualTo(new Outcome.Executed(declined, false, 1));
            assertThat(store.find(id)).isEmpty();
            assertThat(store.calls()).containsExactly("claim", "release");
        }

        @Test
        @DisplayName("the engine answers a claim that did not acquire, and refuses to answer one that did")
        void theEngineAnswersClaims() {
            assertThat(idem.answer(scope, new ClaimOutcome.Mismatch())).isEqualTo(new Outcome.Mismatch());
            assertThatThrownBy(() -> idem.answer(scope, new ClaimOutcome.Acquired(1, 1, java.util.Optional.empty())))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acquired");
        }

        @Test
        @DisplayName("a response over maxResponseBytes is stored with its status and headers, an empty body and Idempotent-Body-Omitted: true")
        void responseTooLarge() {
            Idem capped = idem.toBuilder().maxResponseBytes(4).build();

            Outcome outcome = capped.execute(scope, key, fingerprint, execution -> response(200, "12345"));

            assertThat(outcome).as("the first caller gets the full response").isEqualTo(new Outcome.Executed(response(200, "12345"), true, 1));
            StoredResponse marked = StoredResponse.of(200, Map.of("Content-Type", List.of("text/plain"),
                    StoredResponse.BODY_OMITTED_HEADER, List.of("true")), new byte[0]);
            assertThat(store.find(id)).hasValueSatisfying(r -> assertThat(r.response()).contains(marked));
            assertThat(store.calls()).containsExactly("claim", "complete");
        }

        @Test
        @DisplayName("an oversized response is never a released key: 3 calls, 1 effect, the replays get the marked empty body")
        void oversizedResponseRunsOnce() {
            Idem capped = idem.toBuilder().maxResponseBytes(4).build();
            Operation oversized = execution -> {
                runs.incrementAndGet();
                return response(201, "a body of many bytes");
            };

            List<Outcome> outcomes = List.of(capped.execute(scope, key, fingerprint, oversized),
                    capped.execute(scope, key, fingerprint, oversized), capped.execute(scope, key, fingerprint, oversized));

            assertThat(runs).hasValue(1);
            assertThat(outcomes.get(0)).isEqualTo(new Outcome.Executed(response(201, "a body of many bytes"), true, 1));
            StoredResponse marked = StoredResponse.of(201, Map.of("Content-Type", List.of("text/plain"),
                    StoredResponse.BODY_OMITTED_HEADER, List.of("true")), new byte[0]);
            assertThat(outcomes.subList(1, 3)).containsOnly(new Outcome.Replayed(marked));
        }

        @Test
        @DisplayName("Idem.storable leaves a response at the cap as it is and marks one over it")
        void storable() {
            Idem capped = idem.toBuilder().maxResponseBytes(4).build();

            assertThat(capped.storable(response(200, "1234"))).isEqualTo(response(200, "1234"));
            StoredResponse over = capped.storable(StoredResponse.of(200, Map.of(StoredResponse.BODY_OMITTED_HEADER, List.of("no")), new byte[5]));
            assertThat(over.headers()).containsExactly(Map.entry(StoredResponse.BODY_OMITTED_HEADER, List.of("true")));
            assertThat(over.bodyLength()).isZero();
        }

        @Test
        @DisplayName("a response exactly at maxResponseBytes is stored")
        void responseAtTheCap() {
            Idem capped = idem.toBuilder().maxResponseBytes(4).build();

            Outcome outcome = capped.execute(scope, key, fingerprint, execution -> response(200, "1234"));

            assertThat(outcome).isEqualTo(new Outcome.Executed(response(200, "1234"), true, 1));
        }

        @Test
        @DisplayName("an operation returning null fails and releases the key")
        void nullResponse() {
            assertThatThrownBy(() -> execute(execution -> null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("returned null")
                    .hasMessageNotContaining(KEY_VALUE);
            assertThat(store.find(id)).isEmpty();
            assertThat(execute(counting("paid"))).isInstanceOf(Outcome.Executed.class);
        }

        @Test
        @DisplayName("if releasing fails too, the operation's exception still propagates, carrying the store failure")
        void failedReleaseIsSuppressed() {
            store.failOn("release");
            IllegalStateException boom = new IllegalStateException("gateway down");

            Throwable thrown = catchThrowable(() -> execute(execution -> {
                throw boom;
            }));

            assertThat(thrown).isSameAs(boom);
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(StoreException.class);
        }

        @Test
        @DisplayName("a null operation is rejected before touching the store")
        void nullOperation() {
            assertThatThrownBy(() -> execute(null)).isInstanceOf(NullPointerException.class);
            assertThat(store.calls()).isEmpty();
        }
    }

    @Nested
    @DisplayName("phases and resumption")
    class Phases {
        private final AtomicInteger charges = new AtomicInteger();
        private final AtomicBoolean receiptFails = new AtomicBoolean(true);
        private final List<String> downstreamKeys = Collections.synchronizedList(new ArrayList<>());
        private final List<String> views = Collections.synchronizedList(new ArrayList<>());

        /** Charges a card, then sends a receipt that fails the first time. */
        private final Operation payment = execution -> {
            views.add("attempt " + execution.attempt() + (execution.resumed() ? " resumed" : " fresh"));
            String charge = execution.phase("charge", downstreamKey -> {
                charges.incrementAndGet();
                downstreamKeys.add("charge " + downstreamKey);
                return "ch_1";
            });
            String receipt = execution.phase("receipt", downstreamKey -> {
                downstreamKeys.add("receipt " + downstreamKey);
                if (receiptFails.getAndSet(false)) {
                    throw new IOException("mail server down");
                }
                return "rc_1";
            });
            return response(201, charge + "/" + receipt);
        };

        @Test
        @DisplayName("a failure after a phase finished keeps the record and ends its lease, with the phase checkpointed")
        void failureAfterPhaseKeepsRecord() {
            assertThatThrownBy(() -> execute(payment)).isInstanceOf(OperationFailedException.class)
                    .hasCauseInstanceOf(IOException.class);

            IdempotencyRecord record = store.find(id).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(record.recoveryPoint()).hasValueSatisfying(point -> assertThat(point.phase()).isEqualTo("charge"));
            assertThat(record.leaseUntil()).isBeforeOrEqualTo(store.now());
            assertThat(store.calls()).containsExactly("claim", "checkpoint", "renew");
            assertThat(store.renewals()).containsExactly(Duration.ZERO);
        }

        @Test
        @DisplayName("the next call resumes: the finished phase is not run again and its result comes from the checkpoint")
        void retryResumes() {
            catchThrowable(() -> execute(payment));

            Outcome outcome = execute(payment);

            assertThat(outcome).isEqualTo(new Outcome.Executed(response(201, "ch_1/rc_1"), true, 2));
            assertThat(charges).hasValue(1);
            assertThat(views).containsExactly("attempt 1 fresh", "attempt 2 resumed");
            assertThat(events.events()).containsExactly("claimed 1", "claimed 2", "takeover 2");
            assertThat(execute(payment)).isEqualTo(new Outcome.Replayed(response(201, "ch_1/rc_1")));
        }

        @Test
        @DisplayName("a repeated phase gets the same downstream key on every attempt")
        void downstreamKeyStableAcrossAttempts() {
            catchThrowable(() -> execute(payment));
            execute(payment);

            assertThat(downstreamKeys).hasSize(3);
            assertThat(downstreamKeys.get(1)).startsWith("receipt ").isEqualTo(downstreamKeys.get(2));
        }

        @Test
        @DisplayName("a 5xx after a phase finished is not stored, and the next call resumes after that phase")
        void serverErrorAfterPhase() {
            AtomicBoolean failOnce = new AtomicBoolean(true);
            Operation op = execution -> {
                String charge = execution.phase("charge", downstreamKey -> {
                    charges.incrementAndGet();
                    return "ch_1";
                });
                return failOnce.getAndSet(false) ? response(502, "bad gateway") : response(201, charge);
            };

            assertThat(execute(op)).isEqualTo(new Outcome.Executed(response(502, "bad gateway"), false, 1));
            assertThat(store.renewals()).containsExactly(Duration.ZERO);

            assertThat(execute(op)).isEqualTo(new Outcome.Executed(response(201, "ch_1"), true, 2));
            assertThat(charges).hasValue(1);
        }

        @Test
        @DisplayName("phase results survive a resume through every codec")
        void codecsRoundTrip() {
            AtomicBoolean failOnce = new AtomicBoolean(true);
            AtomicInteger phaseRuns = new AtomicInteger();
            List<String> results = Collections.synchronizedList(new ArrayList<>());
            Operation op = execution -> {
                String text = execution.phase("text", k -> {
                    phaseRuns.incrementAndGet();
                    return "zł-✓";
                });
                long number = execution.phase("number", PhaseCodec.LONG, k -> {
                    phaseRuns.incrementAndGet();
                    return -42L;
                });
                byte[] bytes = execution.phase("bytes", PhaseCodec.BYTES, k -> {
                    phaseRuns.incrementAndGet();
                    return new byte[] {0, (byte) 0xFF, 7};
                });
                results.add(text + "|" + number + "|" + Arrays.toString(bytes));
                if (failOnce.getAndSet(false)) {
                    throw new IllegalStateException("crash after the phases");
                }
                return response(200, "done");
            };

            catchThrowable(() -> execute(op));
            execute(op);

            assertThat(phaseRuns).hasValue(3);
            assertThat(results).containsExactly("zł-✓|-42|[0, -1, 7]", "zł-✓|-42|[0, -1, 7]");
        }

        @Test
        @DisplayName("a phase returning null fails before anything is checkpointed")
        void nullPhaseResult() {
            assertThatThrownBy(() -> execute(execution -> {
                execution.phase("charge", k -> null);
                return response(200, "");
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");

            assertThat(store.calls()).doesNotContain("checkpoint");
            assertThat(store.find(id)).isEmpty();
        }

        @Test
        @DisplayName("phase names must be 1-64 visible ASCII characters")
        void phaseNames() {
            List<String> bad = List.of("", "two words", "é", "p".repeat(65));
            List<Throwable> thrown = new ArrayList<>();

            execute(execution -> {
                for (String name : bad) {
                    thrown.add(catchThrowable(() -> execution.phase(name, k -> "x")));
                    thrown.add(catchThrowable(() -> execution.downstreamKey(name)));
                }
                thrown.add(catchThrowable(() -> execution.phase(null, k -> "x")));
                execution.phase("p".repeat(64), k -> "ok");
                return response(200, "");
            });

            assertThat(thrown).hasSize(bad.size() * 2 + 1).allSatisfy(t -> assertThat(t).isInstanceOf(IllegalArgumentException.class));
        }
    }

    @Nested
    @DisplayName("downstream keys")
    class DownstreamKeys {

        private String downstreamKey(Scope scope, IdempotencyKey key, String phase) {
            AtomicReference<String> seen = new AtomicReference<>();
            idem.execute(scope, key, fingerprint, execution -> {
                seen.set(execution.downstreamKey(phase));
                return response(200, "");
            });
            return seen.get();
        }

        @Test
        @DisplayName("the key handed to a phase is the execution's downstream key for it")
        void phaseGetsDownstreamKey() {
            AtomicReference<String> handed = new AtomicReference<>();
            AtomicReference<String> asked = new AtomicReference<>();

            execute(execution -> {
                asked.set(execution.downstreamKey("charge"));
                execution.phase("charge", k -> {
                    handed.set(k);
                    return "ch_1";
                });
                return response(200, "");
            });

            assertThat(handed.get()).isNotNull().isEqualTo(asked.get());
        }

        @Test
        @DisplayName("it is the same for the same scope, key and phase, whichever engine and store compute it")
        void stable() {
            String first = downstreamKey(scope, key, "charge");

            AtomicReference<String> again = new AtomicReference<>();
            Idem.builder().store(new FakeStore()).renewLeases(false).build()
                    .execute(Scope.parse(scope.value()), IdempotencyKey.parse("\"" + KEY_VALUE + "\""), Fingerprint.none(), execution -> {
                        again.set(execution.downstreamKey("charge"));
                        return response(200, "");
                    });

            assertThat(again).hasValue(first);
        }

        @Test
        @DisplayName("it differs by phase, by scope and by key")
        void differs() {
            String base = downstreamKey(scope, key, "charge");

            assertThat(downstreamKey(scope, IdempotencyKey.of("other-key"), "charge")).isNotEqualTo(base);
            assertThat(downstreamKey(Scope.of("bob", "POST /payments"), key, "charge")).isNotEqualTo(base);
            assertThat(downstreamKey(Scope.of("alice", "POST /refunds"), key, "charge")).isNotEqualTo(base);
            assertThat(downstreamKey(Scope.of("alice", "POST /payments2"), IdempotencyKey.of("y"), "charge"))
                    .isNotEqualTo(downstreamKey(Scope.of("alice", "POST /payments"), IdempotencyKey.of("2y"), "charge"));
        }

        @Test
        @DisplayName("it differs by phase within one execution")
        void differsByPhase() {
            List<String> keys = new ArrayList<>();
            execute(execution -> {
                keys.add(execution.downstreamKey("charge"));
                keys.add(execution.downstreamKey("refund"));
                keys.add(execution.downstreamKey("charge2"));
                return response(200, "");
            });
            assertThat(keys).doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("it is visible ASCII, at most 255 characters, and reveals neither the key nor the principal")
        void shape() {
            String longPrincipal = "p".repeat(200);
            IdempotencyKey longKey = IdempotencyKey.of(KEY_VALUE + "k".repeat(255 - KEY_VALUE.length()));
            String longest = downstreamKey(Scope.of(longPrincipal, "POST /payments"), longKey, "x".repeat(64));
            String usual = downstreamKey(scope, key, "charge");

            for (String downstream : List.of(longest, usual)) {
                assertThat(downstream).hasSizeLessThanOrEqualTo(IdempotencyKey.MAX_LENGTH)
                        .matches("[\\x21-\\x7E]+")
                        .doesNotContain(KEY_VALUE)
                        .doesNotContain("alice")
                        .doesNotContain(longPrincipal);
                // A downstream that validates keys like idem does must accept it.
                assertThat(IdempotencyKey.of(downstream).value()).isEqualTo(downstream);
            }
        }
    }

    @Nested
    @DisplayName("keys in progress")
    class KeysInProgress {

        @Test
        @DisplayName("with reject(), a call finding the key in progress answers InProgress: look again in 1 s, not at the lease's end")
        void rejectAnswersInProgress() {
            AtomicReference<Outcome> inner = new AtomicReference<>();

            execute(execution -> {
                inner.set(execute(counting("duplicate")));
                return response(201, "paid");
            });

            assertThat(inner.get()).isEqualTo(new Outcome.InProgress(Duration.ofSeconds(1)));
            assertThat(runs).hasValue(0);
            assertThat(events.events()).containsExactly("claimed 1", "conflict");
        }

        @Test
        @DisplayName("with waitUpTo(), a call waits for the owner and replays its response")
        void waitReplaysOnceTheOwnerCompletes() throws Exception {
            CountDownLatch ownerRunning = new CountDownLatch(1);
            CountDownLatch ownerMayFinish = new CountDownLatch(1);
            RecordingListener waiterEvents = new RecordingListener();
            Idem waiting = idem.toBuilder().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(30)))
                    .listener(waiterEvents).build();

            Future<Outcome> owner = threads.submit(() -> execute(execution -> {
                ownerRunning.countDown();
                assertThat(ownerMayFinish.await(10, TimeUnit.SECONDS)).isTrue();
                return response(201, "paid");
            }));
            assertThat(ownerRunning.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Outcome> waiter = threads.submit(() -> waiting.execute(scope, key, fingerprint, counting("duplicate")));
            // Only let the owner finish once the waiter has seen the key in progress.
            assertThat(waiterEvents.conflictSeen.await(10, TimeUnit.SECONDS)).isTrue();
            ownerMayFinish.countDown();

            assertThat(owner.get(10, TimeUnit.SECONDS)).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(new Outcome.Replayed(response(201, "paid")));
            assertThat(runs).hasValue(0);
            assertThat(waiterEvents.events()).containsExactly("conflict", "replayed");
        }

        @Test
        @DisplayName("with waitUpTo(), a call takes over once the owner's lease runs out")
        void waitTakesOverAnExpiredLease() throws Exception {
            store.claim(new ClaimRequest(id, fingerprint, Duration.ofSeconds(30), Duration.ofHours(1)));
            Idem waiting = idem.toBuilder().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(30))).build();

            Future<Outcome> waiter = threads.submit(() -> waiting.execute(scope, key, fingerprint, counting("taken over")));
            assertThat(events.conflictSeen.await(10, TimeUnit.SECONDS)).isTrue();
            store.advance(Duration.ofSeconds(31));

            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(new Outcome.Executed(response(201, "taken over"), true, 2));
            assertThat(events.events()).containsExactly("conflict", "claimed 2", "takeover 2");
        }

        @Test
        @DisplayName("with waitUpTo(), a call answers InProgress when the wait is over")
        void waitGivesUp() {
            store.claim(new ClaimRequest(id, fingerprint, Duration.ofSeconds(30), Duration.ofHours(1)));
            Idem waiting = idem.toBuilder().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofMillis(50))).build();

            Outcome outcome = waiting.execute(scope, key, fingerprint, counting("never"));

            assertThat(outcome).isEqualTo(new Outcome.InProgress(Duration.ofSeconds(1)));
            assertThat(runs).hasValue(0);
            assertThat(events.events()).containsExactly("conflict");
        }

        @Test
        @DisplayName("InProgress says to look again when the lease ends if that is sooner than the poll interval")
        void inProgressWithinTheLeasesRemainder() {
            store.claim(new ClaimRequest(id, fingerprint, Duration.ofSeconds(30), Duration.ofHours(1)));
            store.advance(Duration.ofMillis(29_600));

            assertThat(execute(counting("never"))).isEqualTo(new Outcome.InProgress(Duration.ofMillis(400)));
            assertThat(runs).hasValue(0);
        }

        @Test
        @DisplayName("concurrent identical calls: one execution, and every caller gets the same response")
        void concurrentCallsExecuteOnce() throws Exception {
            int callers = 8;
            Idem waiting = idem.toBuilder().inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(30))).build();
            CyclicBarrier start = new CyclicBarrier(callers);
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                futures.add(threads.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return waiting.execute(scope, key, fingerprint, counting("paid"));
                }));
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<Outcome> f : futures) {
                outcomes.add(f.get(30, TimeUnit.SECONDS));
            }

            assertThat(runs).hasValue(1);
            assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Executed).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Replayed).hasSize(callers - 1);
            assertThat(outcomes).allSatisfy(o -> assertThat(o instanceof Outcome.Executed e ? e.response()
                    : ((Outcome.Replayed) o).response()).isEqualTo(response(201, "paid")));
        }
    }

    @Nested
    @DisplayName("takeovers and lost leases")
    class Takeovers {

        @Test
        @DisplayName("an owner overtaken before completing gets LeaseLostException, and the new owner's response stands")
        void completeAfterTakeoverIsRejected() {
            AtomicReference<Outcome> second = new AtomicReference<>();

            Throwable thrown = catchThrowable(() -> execute(execution -> {
                store.advance(Duration.ofSeconds(31));
                second.set(execute(counting("second owner")));
                return response(201, "first owner");
            }));

            assertThat(thrown).isInstanceOf(LeaseLostException.class).hasMessageNotContaining(KEY_VALUE);
            assertThat(((LeaseLostException) thrown).scope()).isEqualTo(scope);
            assertThat(second.get()).isEqualTo(new Outcome.Executed(response(201, "second owner"), true, 2));
            assertThat(store.find(id).orElseThrow().response()).contains(response(201, "second owner"));
            assertThat(events.events()).containsExactly("claimed 1", "claimed 2", "takeover 2", "leaseLost");
        }

        @Test
        @DisplayName("a renewed lease is not taken over, however long the operation runs")
        void renewalKeepsTheLease() {
            Idem renewing = idem.toBuilder().lease(Duration.ofMillis(30)).renewLeases(true).build();
            AtomicReference<Outcome> duplicate = new AtomicReference<>();

            Outcome outcome = renewing.execute(scope, key, fingerprint, execution -> {
                // The store's clock only moves when told to: 40 ms pass on it, more than the 30 ms
                // lease, but with a renewal in between the lease now ends 50 ms after the claim.
                awaitRenewals(1);
                store.advance(Duration.ofMillis(20));
                awaitRenewals(store.renewals().size() + 1);
                store.advance(Duration.ofMillis(20));
                duplicate.set(idem.execute(scope, key, fingerprint, counting("duplicate")));
                return response(201, "paid");
            });

            assertThat(outcome).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(duplicate.get()).isInstanceOf(Outcome.InProgress.class);
            assertThat(runs).hasValue(0);
            assertThat(store.renewals()).contains(Duration.ofMillis(30));
        }

        /** Waits (boundedly) for the lease keeper's timer to have renewed {@code count} times in all. */
        private void awaitRenewals(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.renewals().size() < count) {
                assertThat(System.nanoTime()).as("renewal %d never came", count).isLessThan(deadline);
                Thread.sleep(2);
            }
        }

        @Test
        @DisplayName("a lease lost while running is reported, and the next phase refuses to start")
        void lostLeaseStopsNextPhase() throws Exception {
            Idem renewing = idem.toBuilder().lease(Duration.ofMillis(30)).renewLeases(true).build();
            AtomicBoolean chargeRan = new AtomicBoolean();

            Throwable thrown = catchThrowable(() -> renewing.execute(scope, key, fingerprint, execution -> {
                store.takeOver(id);
                assertThat(events.leaseLostSeen.await(10, TimeUnit.SECONDS)).isTrue();
                return response(201, execution.phase("charge", k -> {
                    chargeRan.set(true);
                    return "ch_1";
                }));
            }));

            assertThat(thrown).isInstanceOf(LeaseLostException.class);
            assertThat(chargeRan).isFalse();
            assertThat(events.events()).as("reported once, however many writes found it").containsExactly("claimed 1", "leaseLost");
            // The new owner's record is untouched: neither released nor completed by the old one.
            assertThat(store.find(id).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        }

        @Test
        @DisplayName("ensureOwned passes while the lease is held")
        void ensureOwnedWhileHeld() {
            Outcome outcome = execute(execution -> {
                execution.ensureOwned();
                return response(200, "ok");
            });
            assertThat(outcome).isInstanceOf(Outcome.Executed.class);
        }
    }

    @Nested
    @DisplayName("listeners")
    class Listeners {

        @Test
        @DisplayName("every event carries the scope")
        void eventsCarryTheScope() {
            execute(counting("paid"));
            execute(counting("paid"));
            idem.execute(scope, key, fingerprint("other"), counting("other"));

            assertThat(events.events()).containsExactly("claimed 1", "replayed", "mismatch");
            assertThat(events.scopes()).containsOnly(scope);
        }

        @Test
        @DisplayName("a listener that throws changes no outcome")
        void throwingListener() {
            IdemListener broken = new IdemListener() {
                @Override
                public void claimed(Scope s, int attempt) {
                    throw new IllegalStateException("metrics down");
                }

                @Override
                public void takeover(Scope s, int attempt) {
                    throw new IllegalStateException("metrics down");
                }

                @Override
                public void replayed(Scope s) {
                    throw new IllegalStateException("metrics down");
                }

                @Override
                public void inProgress(Scope s) {
                    throw new IllegalStateException("metrics down");
                }

                @Override
                public void mismatch(Scope s) {
                    throw new IllegalStateException("metrics down");
                }

                @Override
                public void leaseLost(Scope s) {
                    throw new IllegalStateException("metrics down");
                }
            };
            Idem fragile = idem.toBuilder().listener(broken).build();
            AtomicReference<Outcome> inProgress = new AtomicReference<>();

            Outcome executed = fragile.execute(scope, key, fingerprint, execution -> {
                inProgress.set(fragile.execute(scope, key, fingerprint, counting("duplicate")));
                return response(201, "paid");
            });
            Outcome replayed = fragile.execute(scope, key, fingerprint, counting("again"));
            Outcome mismatch = fragile.execute(scope, key, fingerprint("other"), counting("other"));
            Outcome resumed = resumeAfterCrash(fragile);
            Throwable lost = catchThrowable(() -> fragile.execute(scope, IdempotencyKey.of("lost"), fingerprint, execution -> {
                store.advance(Duration.ofSeconds(31));
                fragile.execute(scope, IdempotencyKey.of("lost"), fingerprint, counting("second"));
                return response(201, "first");
            }));

            assertThat(executed).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(inProgress.get()).isInstanceOf(Outcome.InProgress.class);
            assertThat(replayed).isEqualTo(new Outcome.Replayed(response(201, "paid")));
            assertThat(mismatch).isEqualTo(new Outcome.Mismatch());
            assertThat(resumed).isEqualTo(new Outcome.Executed(response(200, "resumed"), true, 2));
            assertThat(lost).isInstanceOf(LeaseLostException.class);
        }

        /** A first attempt that crashes after a phase, then a retry that takes over and completes. */
        private Outcome resumeAfterCrash(Idem engine) {
            IdempotencyKey crashKey = IdempotencyKey.of("crash");
            catchThrowable(() -> engine.execute(scope, crashKey, fingerprint, execution -> {
                execution.phase("charge", k -> "ch_1");
                throw new IllegalStateException("crash");
            }));
            return engine.execute(scope, crashKey, fingerprint, execution -> {
                execution.phase("charge", k -> "ch_2");
                return response(200, "resumed");
            });
        }

        @Test
        @DisplayName("the default listener does nothing")
        void noop() {
            IdemListener noop = IdemListener.noop();
            noop.claimed(scope, 1);
            noop.purged(3);
            Outcome outcome = Idem.builder().store(store).renewLeases(false).build().execute(scope, key, fingerprint, counting("paid"));
            assertThat(outcome).isInstanceOf(Outcome.Executed.class);
            assertThat(IdemListener.noop()).isSameAs(noop);
        }
    }

    @Test
    @DisplayName("a store failure on claim propagates as StoreException and runs nothing")
    void claimFailure() {
        store.failOn("claim");

        assertThatThrownBy(() -> execute(counting("paid"))).isInstanceOf(StoreException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    @DisplayName("the store answers what the engine claimed: a sanity check of the fake")
    void fakeStoreFollowsTheContract() {
        ClaimRequest request = new ClaimRequest(id, fingerprint, Duration.ofSeconds(30), Duration.ofHours(1));
        ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) store.claim(request);

        assertThat(store.claim(request)).isEqualTo(new ClaimOutcome.InProgress(Duration.ofSeconds(30)));
        store.advance(Duration.ofSeconds(30));
        ClaimOutcome.Acquired second = (ClaimOutcome.Acquired) store.claim(request);

        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(second.attempt()).isEqualTo(2);
        assertThatThrownBy(() -> store.release(id, first.token())).isInstanceOf(LeaseLostException.class);
        store.complete(id, second.token(), response(200, "x"), Duration.ofHours(1));
        assertThat(store.claim(request)).isEqualTo(new ClaimOutcome.Replay(response(200, "x")));
        store.advance(Duration.ofHours(1));
        assertThat(store.find(id)).isEmpty();
    }

    @Nested
    @DisplayName("an execution started here and ended elsewhere (start, complete, fail)")
    class OpenExecutions {

        private OpenExecution owned() {
            Start start = idem.start(scope, key, fingerprint);
            assertThat(start).isInstanceOf(Start.Owned.class);
            return ((Start.Owned) start).execution();
        }

        @Test
        void completingStoresTheResponseAndTheNextCallReplaysIt() {
            OpenExecution execution = owned();
            Outcome outcome = execution.complete(response(201, "paid"));
            assertThat(outcome).isInstanceOf(Outcome.Executed.class);
            assertThat(((Outcome.Executed) outcome).stored()).isTrue();
            Start again = idem.start(scope, key, fingerprint);
            assertThat(again).isInstanceOf(Start.Answered.class);
            Outcome replay = ((Start.Answered) again).outcome();
            assertThat(replay).isInstanceOf(Outcome.Replayed.class);
            assertThat(((Outcome.Replayed) replay).response()).isEqualTo(response(201, "paid"));
        }

        @Test
        void whileOpenTheKeyIsInProgressForEveryOtherCall() {
            OpenExecution execution = owned();
            assertThat(((Start.Answered) idem.start(scope, key, fingerprint)).outcome()).isInstanceOf(Outcome.InProgress.class);
            assertThat(execute(counting("second"))).isInstanceOf(Outcome.InProgress.class);
            assertThat(runs).hasValue(0);
            execution.complete(response(201, "first"));
        }

        @Test
        void anotherFingerprintIsAMismatchNotAnOwner() {
            owned().complete(response(201, "paid"));
            Start other = idem.start(scope, key, fingerprint("{\"amount\":999}"));
            assertThat(((Start.Answered) other).outcome()).isInstanceOf(Outcome.Mismatch.class);
        }

        @Test
        void failingWithNoFinishedPhaseReleasesTheKeyForAFreshRun() {
            owned().fail(new IllegalStateException("downstream said no"));
            assertThat(store.find(id)).isEmpty();
            assertThat(execute(counting("retried"))).isInstanceOf(Outcome.Executed.class);
            assertThat(runs).hasValue(1);
        }

        @Test
        void failingAfterACheckpointEndsTheLeaseSoTheRetryResumesAfterIt() throws Exception {
            OpenExecution execution = owned();
            execution.phase("charge", downstreamKey -> {
                runs.incrementAndGet();
                return "ch_1";
            });
            execution.fail(new IllegalStateException("lost the connection after the charge"));
            AtomicReference<Boolean> resumed = new AtomicReference<>();
            Outcome retry = execute(retrying -> {
                resumed.set(retrying.resumed());
                String charge = retrying.phase("charge", downstreamKey -> {
                    runs.incrementAndGet();
                    return "ch_2";
                });
                return response(201, charge);
            });
            assertThat(resumed.get()).as("the retry resumed after the checkpoint").isTrue();
            assertThat(runs).as("charges").hasValue(1);
            assertThat(((Outcome.Executed) retry).response()).isEqualTo(response(201, "ch_1"));
        }

        @Test
        void anExecutionEndsOnceAndASecondEndSaysSo() {
            OpenExecution execution = owned();
            execution.complete(response(201, "paid"));
            assertThatThrownBy(() -> execution.complete(response(201, "again"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already completed or failed").hasMessageNotContaining(KEY_VALUE);
            assertThatThrownBy(() -> execution.fail(new RuntimeException("late"))).isInstanceOf(IllegalStateException.class);
            assertThat(store.find(id).orElseThrow().response()).contains(response(201, "paid"));
        }

        @Test
        void aResponseThePolicyDoesNotStoreGivesTheKeyBack() {
            Outcome outcome = owned().complete(response(503, "try later"));
            assertThat(((Outcome.Executed) outcome).stored()).isFalse();
            assertThat(store.find(id)).isEmpty();
        }

        @Test
        void completingFromAnotherThreadWorks() throws Exception {
            OpenExecution execution = owned();
            Future<Outcome> elsewhere = threads.submit(() -> execution.complete(response(201, "from a worker")));
            assertThat(elsewhere.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
            assertThat(((Outcome.Replayed) execute(counting("no"))).response()).isEqualTo(response(201, "from a worker"));
        }
    }

    @Nested
    @DisplayName("tombstones: keys that outlive their responses")
    class Tombstones {
        private final Duration retention = Duration.ofHours(1);
        private final Duration window = Duration.ofDays(7);
        private final Idem buried = idem.toBuilder().retention(retention).tombstones(window).build();
        private final RecordKey tombstone = dev.idem.internal.Tombstones.of(id);

        private Outcome executeBuried(Fingerprint print) {
            return buried.execute(scope, key, print, counting("paid again"));
        }

        @Test
        @DisplayName("a retry after the response's retention gets Expired with the status and completion time, and nothing runs")
        void aRetryAfterTheRetentionIsExpired() {
            java.time.Instant before = java.time.Instant.now();
            buried.execute(scope, key, fingerprint, counting("paid"));
            java.time.Instant after = java.time.Instant.now();
            store.advance(retention.plusMinutes(1));
            assertThat(store.find(id)).as("the response is gone").isEmpty();

            Outcome retry = executeBuried(fingerprint);

            assertThat(retry).isInstanceOf(Outcome.Expired.class);
            Outcome.Expired expired = (Outcome.Expired) retry;
            assertThat(expired.status()).isEqualTo(201);
            assertThat(expired.completedAt()).isBetween(before, after);
            assertThat(runs).as("runs").hasValue(1);
            assertThat(store.find(id)).as("the retry's claim was given back").isEmpty();
            assertThat(events.events()).endsWith("expired");
        }

        @Test
        @DisplayName("the tombstone is a small record under the reserved scope: status and completion time, no body, kept for retention + window")
        void theTombstoneHoldsOnlyTheStatusAndTime() {
            buried.execute(scope, key, fingerprint, counting("a body that is not kept"));
            IdempotencyRecord record = store.find(tombstone).orElseThrow();
            assertThat(tombstone.scope().value()).isEqualTo("idem%tombstone " + scope.value());
            assertThat(tombstone.key()).isEqualTo(key);
            assertThat(record.fingerprint()).isEqualTo(fingerprint);
            assertThat(record.response().orElseThrow().status()).isEqualTo(201);
            assertThat(record.response().orElseThrow().bodyLength()).isZero();
            assertThat(record.expiresAt()).isEqualTo(store.now().plus(retention).plus(window));
            assertThat(Scope.of("idem%tombstone", "x").value()).as("Scope.of cannot make the reserved principal")
                    .doesNotStartWith("idem%tombstone ");
        }

        @Test
        @DisplayName("the key reused for another request after the retention is a mismatch, and nothing runs")
        void anotherFingerprintIsAMismatch() {
            buried.execute(scope, key, fingerprint, counting("paid"));
            store.advance(retention.plusMinutes(1));

            assertThat(executeBuried(fingerprint("{\"amount\":999}"))).isEqualTo(new Outcome.Mismatch());
            assertThat(runs).hasValue(1);
        }

        @Test
        @DisplayName("past retention + window the key is forgotten and runs again; without tombstones it runs again right after the retention")
        void pastTheWindowTheKeyRunsAgain() {
            buried.execute(scope, key, fingerprint, counting("paid"));
            store.advance(retention.plus(window).plusMinutes(1));
            assertThat(executeBuried(fingerprint)).isInstanceOf(Outcome.Executed.class);

            Idem plain = idem.toBuilder().retention(retention).build();
            RecordKey other = new RecordKey(scope, IdempotencyKey.of("plain"));
            plain.execute(scope, other.key(), fingerprint, counting("paid"));
            store.advance(retention.plusMinutes(1));
            assertThat(plain.execute(scope, other.key(), fingerprint, counting("again"))).isInstanceOf(Outcome.Executed.class);
            assertThat(store.find(dev.idem.internal.Tombstones.of(other))).as("off by default").isEmpty();
            assertThat(runs).hasValue(4);
        }

        @Test
        @DisplayName("a tombstone that could not be written leaves the call's outcome alone and the key as without tombstones")
        void aFailedTombstoneWriteIsTheStatusQuo() {
            store.failOn("claim tombstone");
            Outcome first = buried.execute(scope, key, fingerprint, counting("paid"));
            assertThat(first).isEqualTo(new Outcome.Executed(response(201, "paid"), true, 1));
            assertThat(store.find(id)).isPresent();
            store.advance(retention.plusMinutes(1));
            assertThat(store.find(tombstone)).isEmpty();
        }

        @Test
        @DisplayName("a tombstone being written answers in progress; one whose writer died is removed and the key runs")
        void aHalfWrittenTombstone() {
            // The writer claimed the tombstone and has not completed it yet (its lease is live).
            ClaimOutcome.Acquired writer = (ClaimOutcome.Acquired) store.claim(
                    new ClaimRequest(tombstone, fingerprint, Duration.ofSeconds(30), retention.plus(window)));
            Outcome during = executeBuried(fingerprint);
            assertThat(during).isInstanceOf(Outcome.InProgress.class);
            assertThat(store.find(id)).as("the retry's claim was given back").isEmpty();

            store.advance(Duration.ofMinutes(1)); // the writer died: its lease is over
            assertThat(executeBuried(fingerprint)).isInstanceOf(Outcome.Executed.class);
            assertThat(runs).hasValue(1);
            assertThat(writer.token()).isPositive();
        }

        @Test
        @DisplayName("start and OpenExecution: completing writes the tombstone, and a late start is answered Expired")
        void openExecutionsWriteAndReadTombstones() {
            Start first = buried.start(scope, key, fingerprint);
            ((Start.Owned) first).execution().complete(response(200, "done"));
            store.advance(retention.plusMinutes(1));

            Start late = buried.start(scope, key, fingerprint);

            assertThat(late).isInstanceOf(Start.Answered.class);
            assertThat(((Start.Answered) late).outcome()).isInstanceOf(Outcome.Expired.class);
            assertThat(((Outcome.Expired) ((Start.Answered) late).outcome()).status()).isEqualTo(200);
        }

        @Test
        @DisplayName("a takeover that completes (a client's retry or the completer's, both through execute) writes the tombstone too")
        void aTakeoverThatCompletesWritesTheTombstone() {
            RuntimeException crash = new IllegalStateException("the owner failed after its phase");
            assertThatThrownBy(() -> buried.execute(scope, key, fingerprint, execution -> {
                execution.phase("charge", downstreamKey -> "ch_1");
                throw crash;
            })).isSameAs(crash);
            Outcome resumed = buried.execute(scope, key, fingerprint, execution -> response(201, execution.phase("charge", k -> "again")));
            assertThat(resumed).isEqualTo(new Outcome.Executed(response(201, "ch_1"), true, 2));
            store.advance(retention.plusMinutes(1));

            assertThat(executeBuried(fingerprint)).isInstanceOf(Outcome.Expired.class);
        }

        @Test
        @DisplayName("a response the policy does not store writes no tombstone")
        void aGivenBackKeyHasNoTombstone() {
            buried.execute(scope, key, fingerprint, execution -> response(503, "later"));
            assertThat(store.find(tombstone)).isEmpty();
        }

        @Test
        void theWindowIsValidatedAndZeroIsOff() {
            assertThatThrownBy(() -> Idem.builder().tombstones(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tombstones window must not be negative");
            assertThat(Idem.builder().store(store).build().tombstones()).isZero();
            assertThat(buried.tombstones()).isEqualTo(window);
            assertThat(buried.toBuilder().build().tombstones()).isEqualTo(window);
        }
    }
}

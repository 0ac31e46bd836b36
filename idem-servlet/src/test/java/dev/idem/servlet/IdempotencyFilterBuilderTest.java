package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Idem;
import dev.idem.Outcome;
import dev.idem.StoragePolicy;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The builder validates each setting where it is set and names the bad value; the policies are immutable values. */
class IdempotencyFilterBuilderTest {
    /** Never called: building a filter does not touch the store. */
    private static final IdempotencyStore UNUSED = new IdempotencyStore() {
        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void release(RecordKey id, long token) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void renew(RecordKey id, long token, Duration lease) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int purge(int limit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey id) {
            throw new UnsupportedOperationException();
        }
    };
    private final Idem idem = Idem.builder().store(UNUSED).build();

    @Test
    void defaultsCoverPostAndPatchWithTheStandardHeaderAndAOneMebibyteRequestCapAndTheEngineResponseCap() {
        assertThat(IdempotencyFilter.builder(idem).build().toString())
                .contains("methods=[POST, PATCH]", "header=Idempotency-Key", "maxRequestBytes=1048576", "maxResponseBytes=" + idem.maxResponseBytes());
    }

    @Test
    void settingsAreApplied() {
        IdempotencyFilter filter = IdempotencyFilter.builder(idem).methods("POST", "PUT", "DELETE").headerName("X-Request-Key")
                .maxRequestBytes(10).maxResponseBytes(0).build();
        assertThat(filter.toString()).contains("methods=[POST, PUT, DELETE]", "header=X-Request-Key", "maxRequestBytes=10", "maxResponseBytes=0");
    }

    @Test
    void badValuesAreRejectedWhereTheyAreSetAndNamed() {
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder(idem);
        assertThatThrownBy(() -> IdempotencyFilter.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("idem");
        assertThatThrownBy(builder::methods).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one");
        assertThatThrownBy(() -> builder.methods("POST", "GET /x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("method").hasMessageContaining("'GET /x'").hasMessageContaining("position 3");
        assertThatThrownBy(() -> builder.methods("POST", null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
        assertThatThrownBy(() -> builder.headerName("Idempotency Key")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("headerName").hasMessageContaining("'Idempotency Key'");
        assertThatThrownBy(() -> builder.headerName("Key\n")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\\u000a");
        assertThatThrownBy(() -> builder.headerName("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> builder.maxRequestBytes(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRequestBytes").hasMessageContaining("-1");
        assertThatThrownBy(() -> builder.maxResponseBytes(Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxResponseBytes").hasMessageContaining(Integer.toString(Integer.MAX_VALUE));
        assertThatThrownBy(() -> builder.routePolicyResolver(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("routePolicyResolver");
        assertThatThrownBy(() -> builder.scopeResolver(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("scopeResolver");
        assertThatThrownBy(() -> builder.fingerprinter(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("fingerprinter");
        assertThatThrownBy(() -> ScopeResolver.credentialHeader("X Api Key")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credential header name").hasMessageContaining("'X Api Key'");
        assertThat(builder.build().toString()).as("a rejected value leaves the earlier setting").contains("methods=[POST, PATCH]");
    }

    @Test
    void routePoliciesAreValues() {
        Idem variant = idem.toBuilder().lease(Duration.ofMinutes(2)).build();
        assertThat(RoutePolicy.required().covered()).isTrue();
        assertThat(RoutePolicy.required().keyRequired()).isTrue();
        assertThat(RoutePolicy.optional().keyRequired()).isFalse();
        assertThat(RoutePolicy.notCovered().covered()).isFalse();
        assertThat(RoutePolicy.required().idem()).isEmpty();
        RoutePolicy withVariant = RoutePolicy.optional().withIdem(variant);
        assertThat(withVariant.idem()).containsSame(variant);
        assertThat(withVariant.keyRequired()).isFalse();
        assertThat(RoutePolicy.optional().idem()).as("withIdem returns a copy").isEmpty();
        assertThat(withVariant).isEqualTo(RoutePolicy.optional().withIdem(variant)).isNotEqualTo(RoutePolicy.optional());
        assertThatThrownBy(() -> RoutePolicy.notCovered().withIdem(variant)).isInstanceOf(IllegalStateException.class);
        assertThat(RoutePolicyResolver.always(RoutePolicy.optional()).resolve(null)).isEqualTo(RoutePolicy.optional());
    }

    @Test
    void aRoutesRunnerAndEngineReplaceEachOther() {
        Idem variant = idem.toBuilder().lease(Duration.ofMinutes(2)).build();
        RequestRunner runner = RequestRunner.of(idem);
        assertThat(RoutePolicy.required().runner()).isEmpty();
        RoutePolicy withRunner = RoutePolicy.required().withIdem(variant).withRunner(runner);
        assertThat(withRunner.runner()).containsSame(runner);
        assertThat(withRunner.idem()).as("the runner replaces the engine").isEmpty();
        assertThat(withRunner.keyRequired()).isTrue();
        assertThat(withRunner.withIdem(variant).runner()).as("and the engine the runner").isEmpty();
        assertThat(withRunner).isEqualTo(RoutePolicy.required().withRunner(runner)).isNotEqualTo(RoutePolicy.required());
        assertThatThrownBy(() -> RoutePolicy.notCovered().withRunner(runner)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RoutePolicy.required().withRunner(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("runner");
        assertThatThrownBy(() -> RequestRunner.of(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("idem");
    }

    @Test
    void storagePolicyAndFailureRetryAfterAreSetAndValidated() {
        assertThat(IdempotencyFilter.builder(idem).build().toString()).as("defaults")
                .contains("StoragePolicy[store not 408, 409, 425, 429, 5xx]", "failureRetryAfter=PT2S");
        IdempotencyFilter filter = IdempotencyFilter.builder(idem).storagePolicy(StoragePolicy.notStoring("5xx"))
                .failureRetryAfter(Duration.ofSeconds(7)).build();
        assertThat(filter.toString()).contains("StoragePolicy[store not 5xx]", "failureRetryAfter=PT7S");
        IdempotencyFilter.Builder builder = IdempotencyFilter.builder(idem);
        assertThatThrownBy(() -> builder.storagePolicy(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("storagePolicy");
        assertThatThrownBy(() -> builder.failureRetryAfter(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("failureRetryAfter");
        assertThatThrownBy(() -> builder.failureRetryAfter(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("failureRetryAfter").hasMessageContaining("PT0S");
    }

    @Test
    void aRoutesStoragePolicyIsKeptAcrossEngineAndRunner() {
        StoragePolicy everything = StoragePolicy.storingAll();
        RoutePolicy policy = RoutePolicy.optional().withStoragePolicy(everything);
        assertThat(RoutePolicy.required().storagePolicy()).isEmpty();
        assertThat(policy.storagePolicy()).containsSame(everything);
        assertThat(policy.keyRequired()).isFalse();
        assertThat(policy.withIdem(idem).storagePolicy()).containsSame(everything);
        assertThat(policy.withRunner(RequestRunner.of(idem)).storagePolicy()).containsSame(everything);
        assertThat(policy).isEqualTo(RoutePolicy.optional().withStoragePolicy(everything)).isNotEqualTo(RoutePolicy.optional());
        assertThat(policy.toString()).contains("StoragePolicy[store every status]");
        assertThatThrownBy(() -> RoutePolicy.notCovered().withStoragePolicy(everything)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RoutePolicy.required().withStoragePolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("storagePolicy");
    }

    @Test
    void aRoutesStoragePolicyBecomesItsEnginesPolicy() {
        StoragePolicy everything = StoragePolicy.storingAll();
        assertThat(RoutePolicy.required().withIdem(idem).withStoragePolicy(everything).idem().orElseThrow().storagePolicy())
                .isSameAs(everything);
        assertThat(RoutePolicy.required().withStoragePolicy(everything).withIdem(idem).idem().orElseThrow().storagePolicy())
                .isSameAs(everything);
        assertThat(idem.storagePolicy()).as("the engine it was derived from is unchanged").isSameAs(StoragePolicy.defaults());
        RequestRunner runner = RequestRunner.of(idem);
        assertThat(runner.withStoragePolicy(idem.storagePolicy())).isSameAs(runner);
        assertThat(IdempotencyFilter.builder(idem).storagePolicy(everything).build().toString()).contains("StoragePolicy[store every status]");
        RequestRunner own = (scope, key, fingerprint, handler) -> new Outcome.Mismatch();
        assertThatThrownBy(() -> RoutePolicy.required().withRunner(own).withStoragePolicy(everything))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("withStoragePolicy");
    }
}

package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What each {@link StoragePolicy} stores, and how a list of statuses is read. */
class StoragePolicyTest {

    private static StoredResponse status(int status) {
        return StoredResponse.of(status, new byte[0]);
    }

    @ParameterizedTest(name = "{0} is not stored by default")
    @ValueSource(ints = {408, 409, 425, 429, 500, 501, 502, 503, 504, 599})
    void theDefaultDoesNotStoreNotNowStatuses(int status) {
        assertThat(StoragePolicy.defaults().stores(status(status))).isFalse();
    }

    @ParameterizedTest(name = "{0} is stored by default")
    @ValueSource(ints = {200, 201, 202, 204, 301, 303, 400, 401, 403, 404, 410, 412, 413, 422, 428, 499})
    void theDefaultStoresEverythingElse(int status) {
        assertThat(StoragePolicy.defaults().stores(status(status))).isTrue();
    }

    @Test
    void aListOfStatusesAndClassesIsReadLeniently() {
        StoragePolicy policy = StoragePolicy.notStoring(" 429 ", "5XX");
        assertThat(policy.stores(status(429))).isFalse();
        assertThat(policy.stores(status(500))).isFalse();
        assertThat(policy.stores(status(599))).isFalse();
        assertThat(policy.stores(status(409))).isTrue();
        assertThat(policy.stores(status(200))).isTrue();
        assertThat(policy.toString()).isEqualTo("StoragePolicy[store not 429, 5xx]");
    }

    @Test
    void noStatusStoresEverything() {
        assertThat(StoragePolicy.notStoring(List.of())).isSameAs(StoragePolicy.storingAll());
        assertThat(StoragePolicy.storingAll().stores(status(503))).isTrue();
        assertThat(StoragePolicy.storingAll().toString()).isEqualTo("StoragePolicy[store every status]");
    }

    @Test
    void anEntryThatIsNeitherAStatusNorAClassIsRefusedAndNamed() {
        for (String bad : new String[] {"", "42", "600", "099", "6xx", "5x", "abc", "4xx5"}) {
            assertThatThrownBy(() -> StoragePolicy.notStoring(bad)).as("'%s'", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> StoragePolicy.notStoring((String) null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aPredicateSeesTheWholeResponse() {
        StoragePolicy policy = StoragePolicy.of(response -> response.headers().containsKey("Location"), "created resources");
        assertThat(policy.stores(StoredResponse.of(201, Map.of("Location", List.of("/x")), new byte[0]))).isTrue();
        assertThat(policy.stores(status(201))).isFalse();
        assertThat(policy.toString()).isEqualTo("StoragePolicy[store created resources]");
    }

    @Test
    void aDeclinedResponseIsStoredByNoPolicy() {
        StoredResponse declined = StoragePolicy.declined(status(201));
        assertThat(StoragePolicy.isDeclined(declined)).isTrue();
        assertThat(StoragePolicy.isDeclined(status(201))).isFalse();
        assertThat(declined.headers()).containsEntry(StoragePolicy.DECLINE_HEADER, List.of("no"));
        assertThat(StoragePolicy.declined(declined)).isSameAs(declined);
        assertThat(StoragePolicy.storingAll().stores(declined)).isFalse();
        assertThat(StoragePolicy.defaults().stores(declined)).isFalse();
        assertThat(StoragePolicy.of(response -> true, "anything").stores(declined)).isFalse();
        assertThat(StoragePolicy.storingAll().stores(StoredResponse.of(201, Map.of(StoragePolicy.DECLINE_HEADER, List.of("yes")), new byte[0])))
                .as("only 'no' declines").isTrue();
    }
}

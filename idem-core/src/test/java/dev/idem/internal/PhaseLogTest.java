package dev.idem.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PhaseLogTest {

    private static Map<String, byte[]> roundTrip(Map<String, byte[]> phases) {
        return PhaseLog.decode(PhaseLog.encode(phases));
    }

    /** Map equality on byte[] values compares identity, so compare entry by entry. */
    private static void assertSamePhases(Map<String, byte[]> actual, Map<String, byte[]> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        expected.forEach((name, value) -> assertThat(actual.get(name)).as(name).isEqualTo(value));
    }

    /** Writes a state by hand, to make inputs that encode() never would. */
    private static byte[] handWritten(int version, int count, Object... nameLengthBytes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(version);
        out.writeInt(count);
        for (int i = 0; i < nameLengthBytes.length; i += 3) {
            out.writeUTF((String) nameLengthBytes[i]);
            out.writeInt((Integer) nameLengthBytes[i + 1]);
            out.write((byte[]) nameLengthBytes[i + 2]);
        }
        return bytes.toByteArray();
    }

    @Test
    @DisplayName("an empty log round-trips")
    void empty() {
        assertThat(roundTrip(Map.of())).isEmpty();
    }

    @Test
    @DisplayName("phases round-trip in their order, with empty and binary values")
    void roundTripKeepsOrderAndBytes() {
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        Map<String, byte[]> phases = new LinkedHashMap<>();
        phases.put("zeta", "ch_123".getBytes(StandardCharsets.UTF_8));
        phases.put("alpha", new byte[0]);
        phases.put("mu", binary);
        phases.put("beta", new byte[] {0, 0, 0});

        Map<String, byte[]> decoded = roundTrip(phases);

        assertSamePhases(decoded, phases);
    }

    @Test
    @DisplayName("non-ASCII names and large values round-trip")
    void unicodeNamesAndLargeValues() {
        byte[] large = new byte[1 << 20];
        Arrays.fill(large, (byte) 7);
        Map<String, byte[]> phases = new LinkedHashMap<>();
        phases.put("paiement-é", large);

        assertSamePhases(roundTrip(phases), phases);
    }

    @Test
    @DisplayName("the same phases always encode to the same bytes")
    void encodingIsDeterministic() {
        Map<String, byte[]> phases = new LinkedHashMap<>();
        phases.put("charge", new byte[] {1, 2});
        assertThat(PhaseLog.encode(phases)).isEqualTo(PhaseLog.encode(new LinkedHashMap<>(phases)));
    }

    @Test
    @DisplayName("the decoded map is read-only")
    void decodedIsUnmodifiable() {
        Map<String, byte[]> decoded = roundTrip(Map.of("a", new byte[] {1}));
        assertThatThrownBy(() -> decoded.put("b", new byte[0])).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("an empty state is corrupt")
    void emptyInput() {
        assertThatThrownBy(() -> PhaseLog.decode(new byte[0])).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("an unknown version is rejected")
    void unknownVersion() throws IOException {
        assertThatThrownBy(() -> PhaseLog.decode(handWritten(2, 0)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("version");
    }

    @Test
    @DisplayName("a state cut short anywhere is corrupt")
    void truncated() {
        Map<String, byte[]> phases = new LinkedHashMap<>();
        phases.put("charge", "ch_123".getBytes(StandardCharsets.UTF_8));
        phases.put("ship", "sh_9".getBytes(StandardCharsets.UTF_8));
        byte[] full = PhaseLog.encode(phases);

        for (int length = 1; length < full.length; length++) {
            byte[] cut = Arrays.copyOf(full, length);
            assertThatThrownBy(() -> PhaseLog.decode(cut)).as("cut to %d bytes", length).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    @DisplayName("a count larger than the phases present is corrupt")
    void countTooLarge() throws IOException {
        byte[] state = handWritten(1, 3, "a", 1, new byte[] {1});
        assertThatThrownBy(() -> PhaseLog.decode(state)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("regression: a negative phase count is corrupt, not an empty log")
    void negativeCount() throws IOException {
        // An empty log would make a resumed operation run its finished phases again.
        assertThatThrownBy(() -> PhaseLog.decode(handWritten(1, -1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corrupt");
    }

    @Test
    @DisplayName("regression: a negative value length is corrupt (was NegativeArraySizeException)")
    void negativeLength() throws IOException {
        byte[] state = handWritten(1, 1, "a", -5, new byte[0]);
        assertThatThrownBy(() -> PhaseLog.decode(state))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corrupt");
    }

    @Test
    @DisplayName("regression: a huge value length is corrupt and allocates nothing (was OutOfMemoryError)")
    void hugeLength() throws IOException {
        byte[] state = handWritten(1, 1, "a", Integer.MAX_VALUE, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> PhaseLog.decode(state))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corrupt");
    }

    @Test
    @DisplayName("random bytes are rejected with IllegalStateException, never another exception")
    void garbage() {
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[1 + random.nextInt(40)];
            random.nextBytes(junk);
            junk[0] = 1; // past the version check, into the body
            Throwable thrown = catchThrowable(() -> PhaseLog.decode(junk));
            if (thrown != null) {
                assertThat(thrown).as("input %s", Arrays.toString(junk)).isInstanceOf(IllegalStateException.class);
            }
        }
    }
}

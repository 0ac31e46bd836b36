package dev.idem.jdbc.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TablesTest {

    @Test
    @DisplayName("renaming replaces each default and its derived names in one pass, so swapped or nested names never cascade")
    void renameInOnePass() {
        String sql = "CREATE INDEX idem_inbox_expires_at_idx ON idem_inbox (x); SELECT * FROM idem_quarantine, idem_outbox_sequence, idem_record";

        String renamed = Tables.rename(sql, Map.of("idem_inbox", "idem_quarantine", "idem_quarantine", "idem_inbox", "idem_outbox", "events"));

        assertThat(renamed).isEqualTo("CREATE INDEX idem_quarantine_expires_at_idx ON idem_quarantine (x); SELECT * FROM idem_inbox, events_sequence, idem_record");
    }
}

package dev.idem.spring.listener.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The listeners' effect: one ledger row per message ({@code <number>:<amount>}), with no unique
 * constraint, so a second effect of a message would show as a second row. For the crash tests, the
 * process halts (no shutdown hooks, like a kill) right after the transaction that wrote a chosen
 * message commits, before the container acknowledges it, once per chosen message across processes
 * (a marker file remembers it).
 */
@Component
public class Ledger {
    private final JdbcTemplate jdbc;
    private final Set<Integer> haltAt;
    private final Path markers;

    public Ledger(JdbcTemplate jdbc, @Value("${ledger.halt-at:}") String haltAt, @Value("${ledger.markers:}") String markers) {
        this.jdbc = jdbc;
        this.haltAt = Arrays.stream(haltAt.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Integer::valueOf)
                .collect(Collectors.toUnmodifiableSet());
        this.markers = markers.isEmpty() ? null : Path.of(markers);
        createTable(jdbc);
    }

    /**
     * The crash tests start two processes at once, and PostgreSQL's CREATE TABLE IF NOT EXISTS is not
     * atomic: the process that loses the race fails with "already exists" (or a duplicate catalog row)
     * once the other's table has committed. Run again, IF NOT EXISTS then sees that table.
     */
    private static void createTable(JdbcTemplate jdbc) {
        String ddl = "CREATE TABLE IF NOT EXISTS ledger (listener VARCHAR(40) NOT NULL, number INTEGER NOT NULL, amount BIGINT NOT NULL)";
        try {
            jdbc.execute(ddl);
        } catch (DataAccessException raced) {
            jdbc.execute(ddl);
        }
    }

    /** Writes the row of {@code value} for {@code listener}, in the listener's transaction. */
    public void write(String listener, String value) {
        writeAll(listener, List.of(value));
    }

    /** Writes the rows of {@code values} for {@code listener} with one JDBC batch, in the listener's transaction. */
    public void writeAll(String listener, List<String> values) {
        List<Object[]> rows = new ArrayList<>(values.size());
        for (String value : values) {
            String[] parts = value.split(":", 2);
            int number = Integer.parseInt(parts[0]);
            rows.add(new Object[] {listener, number, Long.parseLong(parts[1])});
            haltAfterCommitIfChosen(listener, number);
        }
        jdbc.batchUpdate("INSERT INTO ledger (listener, number, amount) VALUES (?, ?, ?)", rows);
    }

    private void haltAfterCommitIfChosen(String listener, int number) {
        if (markers != null && haltAt.contains(number)) {
            Path marker = markers.resolve("halted-" + listener + "-" + number);
            if (!Files.exists(marker)) {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        halt(marker);
                    }
                });
            }
        }
    }

    private static void halt(Path marker) {
        try {
            Files.createFile(marker);
        } catch (FileAlreadyExistsException e) {
            return;  // another consumer of the same message halted its process already
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().halt(3);
    }
}

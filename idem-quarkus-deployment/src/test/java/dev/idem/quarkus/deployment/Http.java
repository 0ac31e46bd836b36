package dev.idem.quarkus.deployment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** What the tests send and count: JSON posts with or without a key, and the effects table. */
final class Http {
    static final String EFFECTS_TABLE = "idem_quarkus_effects";
    private Http() {
    }

    static HttpResponse<String> post(String base, String path, String key, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base.replaceAll("/$", "") + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return send(request.build());
    }

    /**
     * Over a new HTTP/1.1 connection: the JDK client would otherwise upgrade to HTTP/2 and keep the
     * connection, which a restarting application closes under the next request (GOAWAY).
     */
    static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The effect of one run of a resource method: a row naming what it was for. */
    static void recordEffect(DataSource dataSource, String what) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO " + EFFECTS_TABLE + " (what) VALUES (?)")) {
            insert.setString(1, what);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("could not record the effect", e);
        }
    }

    static int effects(DataSource dataSource, String what) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement count = c.prepareStatement("SELECT count(*) FROM " + EFFECTS_TABLE + " WHERE what = ?")) {
            count.setString(1, what);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    static void createEffectsTable(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + EFFECTS_TABLE + " (what text NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create " + EFFECTS_TABLE, e);
        }
    }
}

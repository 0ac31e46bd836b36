package dev.idem.demo.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The TCP pass-through: bytes both ways, a blackhole that holds them, a cut that resets every connection. */
class TcpProxyTest {
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ServerSocket echo;
    private TcpProxy proxy;

    @AfterEach
    void stopAll() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        if (echo != null) {
            echo.close();
        }
        threads.shutdownNow();
    }

    /** A line echo server: every byte comes back. */
    private int startEcho() throws IOException {
        echo = new ServerSocket(0);
        threads.execute(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket socket = echo.accept();
                    threads.execute(() -> {
                        try (socket) {
                            socket.getInputStream().transferTo(socket.getOutputStream());
                        } catch (IOException ignored) {
                            // The test closed it.
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
        return echo.getLocalPort();
    }

    @Test
    void passesBytesBothWaysAndHoldsThemDuringABlackhole() throws Exception {
        proxy = TcpProxy.builder("127.0.0.1", startEcho()).build().start();
        try (Socket client = new Socket("127.0.0.1", proxy.port())) {
            client.setSoTimeout(5_000);
            assertThat(roundTrip(client, "ping")).isEqualTo("ping");

            proxy.blackhole(Duration.ofMillis(1_500));
            client.setSoTimeout(500);
            send(client, "held");
            assertThatThrownBy(() -> read(client, 4)).as("nothing passes while the blackhole is on")
                    .isInstanceOf(SocketTimeoutException.class);

            client.setSoTimeout(10_000);
            assertThat(read(client, 4)).as("the held bytes arrive once it heals").isEqualTo("held");
        }
        assertThat(proxy.statsJson()).contains("\"blackholes\":1");
    }

    @Test
    void aCutResetsOpenConnections() throws Exception {
        proxy = TcpProxy.builder("127.0.0.1", startEcho()).build().start();
        try (Socket client = new Socket("127.0.0.1", proxy.port())) {
            client.setSoTimeout(5_000);
            assertThat(roundTrip(client, "ping")).isEqualTo("ping");

            proxy.cut();

            assertThatThrownBy(() -> {
                send(client, "gone");
                if (client.getInputStream().read() < 0) {
                    throw new IOException("end of stream");
                }
            }).isInstanceOf(IOException.class);
        }
        assertThat(proxy.statsJson()).contains("\"cuts\":1");
    }

    private static String roundTrip(Socket socket, String text) throws IOException {
        send(socket, text);
        return read(socket, text.length());
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String read(Socket socket, int length) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] bytes = in.readNBytes(length);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}

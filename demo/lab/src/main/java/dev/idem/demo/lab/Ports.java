package dev.idem.demo.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Free ports on the loopback interface, for children that need their port on the command line. */
final class Ports {
    private Ports() {
    }

    /**
     * A port that was free a moment ago. Another process could take it before the child binds it;
     * on a quiet machine that does not happen, and the child then fails to start with a clear error.
     */
    static int free() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}

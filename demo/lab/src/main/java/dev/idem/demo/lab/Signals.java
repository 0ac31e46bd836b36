package dev.idem.demo.lab;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Signals Java has no API for (SIGSTOP, SIGCONT), sent with the system's {@code kill}. */
final class Signals {
    private Signals() {
    }

    /** {@code kill -<signal> <pid>}; true if it was delivered. */
    static boolean send(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}

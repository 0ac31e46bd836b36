package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad flags to the packaged program: exit status 2 and a message naming the flag, before anything starts. */
class BadFlagsIT {
    private static final List<String> GOOD = List.of("--port", "18099", "--kafka", "127.0.0.1:9", "--topic", "payments",
            "--group", "ledger", "--mode", "inbox");

    static Stream<Arguments> badFlags() {
        return Stream.of(
                Arguments.of(replace("--mode", "bogus"), "--mode"),
                Arguments.of(with("--crash-after", "0"), "--crash-after"),
                Arguments.of(with("--crash-after", "x"), "--crash-after"),
                Arguments.of(replace("--port", "70000"), "--port"),
                Arguments.of(replace("--kafka", "no-port"), "--kafka"),
                Arguments.of(replace("--topic", "bad topic"), "--topic"),
                Arguments.of(replace("--group", "a group"), "--group"),
                Arguments.of(with("--db", "jdbc:mysql://127.0.0.1/x"), "--db"),
                Arguments.of(without("--topic"), "--topic"),
                Arguments.of(with("--bogus", "1"), "--bogus"));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("badFlags")
    void badFlagsExitWithStatus2AndNameTheFlag(List<String> args, String flag) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", LedgerProcess.jar().toAbsolutePath().toString()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = read(process);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isEqualTo(2);
        assertThat(output.lines().findFirst().orElse("")).as(output).contains(flag);
    }

    private static String read(Process process) throws IOException {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static List<String> replace(String flag, String value) {
        List<String> args = new ArrayList<>(GOOD);
        args.set(args.indexOf(flag) + 1, value);
        return args;
    }

    private static List<String> with(String flag, String value) {
        List<String> args = new ArrayList<>(GOOD);
        args.add(flag);
        args.add(value);
        return args;
    }

    private static List<String> without(String flag) {
        List<String> args = new ArrayList<>(GOOD);
        int at = args.indexOf(flag);
        args.remove(at + 1);
        args.remove(at);
        return args;
    }
}

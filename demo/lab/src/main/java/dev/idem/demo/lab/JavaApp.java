package dev.idem.demo.lab;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How to start one of the demo's programs in its own JVM: {@code java <jvm options> <launch> <args>},
 * where launch is {@code -jar x.jar} for the built jars, or {@code -cp <class path> <main class>}
 * (tests start programs from their own class path).
 */
public record JavaApp(String name, List<String> jvmOptions, List<String> launch, Path mustExist) {
    /**
     * Every demo process runs in 256 MB; serial GC keeps a 2-core machine for the work. The service is
     * restarted several times per lab, and C1 alone starts Spring Boot about a second sooner.
     */
    public static final List<String> SERVICE_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** The gateway and the proxy are small and restarted often: C1 only starts them faster. */
    public static final List<String> SMALL_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    public static JavaApp jar(String name, List<String> jvmOptions, Path jar) {
        return new JavaApp(name, jvmOptions, List.of("-jar", jar.toAbsolutePath().toString()), jar);
    }

    public static JavaApp mainClass(String name, List<String> jvmOptions, String classPath, String mainClass) {
        return new JavaApp(name, jvmOptions, List.of("-cp", classPath, mainClass), null);
    }

    /**
     * This JVM's class path with every entry made absolute: the lab's jar when it runs as
     * {@code java -jar}, the test class path in tests. Programs of the lab itself start from it.
     */
    public static String ownClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** @throws IllegalStateException if the jar is not built */
    public void check(String hint) {
        if (mustExist != null && !Files.isRegularFile(mustExist)) {
            throw new IllegalStateException(name + " not found at " + mustExist + "; " + hint);
        }
    }

    List<String> command(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(launch);
        command.addAll(args);
        return command;
    }
}

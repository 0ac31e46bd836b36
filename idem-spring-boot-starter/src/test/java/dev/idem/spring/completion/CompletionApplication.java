package dev.idem.spring.completion;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A payments application with an {@code @Idempotent(completable = true)} route, whose handler charges in
 * a phase (a row in {@code route_completer_charges}) and dies before answering when asked to.
 */
@SpringBootApplication
public class CompletionApplication {

    public static void main(String[] args) {
        SpringApplication.run(CompletionApplication.class, args);
    }

    /** What each run of a handler saw of its request, in order. */
    @Bean
    Sightings sightings() {
        return new Sightings();
    }

    public static final class Sightings {
        private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        void add(String sighting) {
            seen.add(sighting);
        }

        public List<String> all() {
            synchronized (seen) {
                return List.copyOf(seen);
            }
        }
    }
}

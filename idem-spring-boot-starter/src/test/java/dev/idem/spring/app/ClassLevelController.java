package dev.idem.spring.app;

import dev.idem.spring.Idempotent;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code @Idempotent} on the class covers its handler methods; a method's own annotation wins. */
@RestController
@RequestMapping("/refunds")
@Idempotent
public class ClassLevelController {
    private final Effects effects;

    public ClassLevelController(Effects effects) {
        this.effects = effects;
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    public Map<String, Object> refund(@RequestBody Map<String, Object> body) {
        String item = String.valueOf(body.get("item"));
        return Map.of("item", item, "run", effects.run(item));
    }

    @PostMapping("/preview")
    @Idempotent(required = false)
    public Map<String, Object> preview(@RequestBody Map<String, Object> body) {
        String item = String.valueOf(body.get("item"));
        return Map.of("item", item, "run", effects.run(item));
    }
}

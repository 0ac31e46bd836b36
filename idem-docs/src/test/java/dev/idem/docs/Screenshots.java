package dev.idem.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;

/**
 * The documentation's screenshots (docs/images/*.png), taken by the browser tests at 1280 px. Written
 * only when {@code -Didem.docs.write=true} is given, as the configuration reference is, so that an
 * ordinary run leaves the working tree as it was.
 */
final class Screenshots {
    static final String PROPERTY = ConfigurationReferenceTest.WRITE;

    private Screenshots() {
    }

    static boolean writing() {
        return Boolean.getBoolean(PROPERTY);
    }

    /** Saves what the browser shows as docs/images/{@code name}.png, when writing; returns the PNG's size in bytes either way. */
    static int take(TakesScreenshot browser, String name) throws IOException {
        byte[] png = browser.getScreenshotAs(OutputType.BYTES);
        if (writing()) {
            Path file = Repository.root().resolve("docs/images").resolve(name + ".png");
            Files.createDirectories(file.getParent());
            Files.write(file, png);
        }
        return png.length;
    }
}

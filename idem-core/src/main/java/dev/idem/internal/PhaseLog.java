package dev.idem.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The results of the finished phases, in order, encoded as a recovery point's state:
 * {@code version:byte, count:int, (name:UTF, length:int, bytes)*}.
 */
public final class PhaseLog {
    private static final byte VERSION = 1;

    private PhaseLog() {
    }

    public static byte[] encode(Map<String, byte[]> phases) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            out.writeInt(phases.size());
            for (Map.Entry<String, byte[]> phase : phases.entrySet()) {
                out.writeUTF(phase.getKey());
                out.writeInt(phase.getValue().length);
                out.write(phase.getValue());
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writing to memory", e);
        }
    }

    public static Map<String, byte[]> decode(byte[] state) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("recovery point state has unknown version " + version);
            }
            int count = in.readInt();
            if (count < 0) {
                throw new IllegalStateException("recovery point state is corrupt: negative phase count " + count);
            }
            Map<String, byte[]> phases = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int length = in.readInt();
                // Checked before allocating: a corrupt length must not become a huge allocation.
                if (length < 0 || length > in.available()) {
                    throw new IllegalStateException("recovery point state is corrupt: phase length " + length
                            + " with " + in.available() + " bytes left");
                }
                byte[] value = new byte[length];
                in.readFully(value);
                phases.put(name, value);
            }
            return Collections.unmodifiableMap(phases);
        } catch (IOException e) {
            throw new IllegalStateException("recovery point state is corrupt", e);
        }
    }
}

package dev.idem.redis.internal;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Response headers as one binary value: a count of names, then per name its length-prefixed UTF-8
 * bytes, a count of values and each value length-prefixed. Binary-safe and order-preserving, so a
 * replay gets the names in their order and every value exactly as stored.
 */
public final class HeaderCodec {
    private HeaderCodec() {
    }

    public static byte[] encode(Map<String, List<String>> headers) {
        List<byte[]> parts = new ArrayList<>();
        int size = Integer.BYTES;
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            byte[] name = header.getKey().getBytes(StandardCharsets.UTF_8);
            parts.add(name);
            size += 2 * Integer.BYTES + name.length;
            for (String value : header.getValue()) {
                byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                parts.add(bytes);
                size += Integer.BYTES + bytes.length;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(headers.size());
        int next = 0;
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            putBytes(out, parts.get(next++));
            out.putInt(header.getValue().size());
            for (int i = 0; i < header.getValue().size(); i++) {
                putBytes(out, parts.get(next++));
            }
        }
        return out.array();
    }

    /** @throws IllegalArgumentException if the bytes are not an encoding this class made */
    public static Map<String, List<String>> decode(byte[] encoded) {
        if (encoded == null || encoded.length == 0) {
            return Map.of();
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(encoded);
            int names = count(in);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 0; i < names; i++) {
                String name = string(in);
                int values = count(in);
                List<String> list = new ArrayList<>(values);
                for (int j = 0; j < values; j++) {
                    list.add(string(in));
                }
                headers.put(name, list);
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("stored headers have " + in.remaining() + " bytes after their end");
            }
            return headers;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("stored headers end early", e);
        }
    }

    private static void putBytes(ByteBuffer out, byte[] bytes) {
        out.putInt(bytes.length);
        out.put(bytes);
    }

    private static int count(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("stored headers have an impossible count " + n);
        }
        return n;
    }

    private static String string(ByteBuffer in) {
        byte[] bytes = new byte[count(in)];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

package dev.idem.http.internal;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;

/**
 * A canonical byte form of a JSON document, so that two bodies that mean the same JSON hash alike:
 * object members sorted by name (UTF-16 code units, as RFC 8785 does), at every depth; insignificant
 * whitespace dropped; strings re-escaped one way. Numbers are kept exactly as written ({@code 1.0}
 * stays {@code 1.0}, {@code 1e2} stays {@code 1e2}): the application may read them differently, so
 * they are different requests. Members with the same name are all kept, in their original order.
 *
 * <p>Parsing is strict (no comments, no single quotes, no trailing content) and bounded by Jackson's
 * default stream constraints (nesting depth, number and string lengths).
 */
public final class CanonicalJson {
    /**
     * Jackson's streaming factory with its defaults (a default mapper's, without the mapper): no objects
     * are bound, so no databinding context is built per call (a mapper's {@code createParser} and
     * {@code createGenerator} do, which the endpoint profile showed at about half of this class's time),
     * and idem-servlet needs only jackson-core.
     */
    private static final TokenStreamFactory FACTORY = new JsonFactory();
    private static final byte[] EMPTY = new byte[0];
    private static final Comparator<Member> BY_NAME = Comparator.comparing(Member::name);

    private CanonicalJson() {
    }

    /**
     * The canonical form of {@code json}. An empty or whitespace-only body has the empty form: there
     * is no document to canonicalise, and whether that is acceptable is the handler's decision.
     *
     * @throws Malformed if {@code json} is not one well-formed JSON value
     */
    public static byte[] canonicalize(byte[] json) {
        JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), json);
        try (parser) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return EMPTY;
            }
            Node root = read(parser, first);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw Malformed.at("content after the end of the JSON value", parser.currentLocation());
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(json.length);
            try (JsonGenerator generator = FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
                root.write(generator);
            }
            return out.toByteArray();
        } catch (StreamConstraintsException e) {
            throw Malformed.at("over a parser limit (nesting depth, number or string length)", parser.currentLocation());
        } catch (JacksonException e) {
            // Jackson's message may quote the body; only the location is passed on.
            throw Malformed.at("not well-formed JSON", e.getLocation() != null ? e.getLocation() : parser.currentLocation());
        }
    }

    private static Node read(JsonParser parser, JsonToken token) {
        switch (token) {
            case START_OBJECT: {
                List<Member> members = new ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
                    String name = parser.currentName();
                    members.add(new Member(name, read(parser, parser.nextToken())));
                }
                expect(next, JsonToken.END_OBJECT, parser);
                members.sort(BY_NAME); // stable: same-name members keep their order
                return generator -> {
                    generator.writeStartObject();
                    for (Member member : members) {
                        generator.writeName(member.name());
                        member.value().write(generator);
                    }
                    generator.writeEndObject();
                };
            }
            case START_ARRAY: {
                List<Node> items = new ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) != JsonToken.END_ARRAY && next != null) {
                    items.add(read(parser, next));
                }
                expect(next, JsonToken.END_ARRAY, parser);
                return generator -> {
                    generator.writeStartArray();
                    for (Node item : items) {
                        item.write(generator);
                    }
                    generator.writeEndArray();
                };
            }
            case VALUE_STRING: {
                String text = parser.getString();
                return generator -> generator.writeString(text);
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT: {
                String literal = parser.getString(); // the number's text as written
                return generator -> generator.writeNumber(literal);
            }
            case VALUE_TRUE:
                return generator -> generator.writeBoolean(true);
            case VALUE_FALSE:
                return generator -> generator.writeBoolean(false);
            case VALUE_NULL:
                return JsonGenerator::writeNull;
            default:
                throw Malformed.at("unexpected " + token, parser.currentLocation());
        }
    }

    private static void expect(JsonToken actual, JsonToken expected, JsonParser parser) {
        if (actual != expected) {
            throw Malformed.at("unexpected end of JSON", parser.currentLocation());
        }
    }

    @FunctionalInterface
    private interface Node {
        void write(JsonGenerator generator);
    }

    private record Member(String name, Node value) {
    }

    /** A body that is not well-formed JSON. The message gives a position, never content. */
    public static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private Malformed(String message) {
            super(message, null, false, false);
        }

        static Malformed at(String what, TokenStreamLocation location) {
            if (location == null || location.getLineNr() < 1) {
                return new Malformed(what);
            }
            return new Malformed(what + " at line " + location.getLineNr() + ", column " + location.getColumnNr());
        }
    }
}

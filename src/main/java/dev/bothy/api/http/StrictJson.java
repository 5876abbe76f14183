package dev.bothy.api.http;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The strict reading of request JSON: a value is taken only when it is exactly what the target
 * declares (no number or boolean becomes a string, no string becomes a number, no float becomes an
 * integer, no null sits in a list), every string and member name is valid Unicode without U+0000
 * (PostgreSQL's {@code jsonb} refuses U+0000, and a lone surrogate would be stored as {@code ?}),
 * and the parser's limits carry their configuration keys ({@code api.maxJsonDepth}, {@code
 * api.maxJsonNameLength}).
 */
final class StrictJson {
  /** How Jackson's duplicate detection starts its message ({@code Duplicate field 'name'}). */
  private static final String DUPLICATE_MEMBER = "Duplicate field ";

  /**
   * How Jackson's byte parser starts its message for bytes it takes for bad UTF-8; it says so too
   * for a member name holding an escaped surrogate pair ({@code "\\ud83c\\udf89"}), which is valid
   * JSON and which its text parser reads.
   */
  private static final String INVALID_UTF8 = "Invalid UTF-8";

  /** The key of the nesting limit. */
  static final String DEPTH_KEY = "api.maxJsonDepth";

  /** The key of the member name limit. */
  static final String NAME_KEY = "api.maxJsonNameLength";

  private final ObjectMapper mapper;
  private final int maxDepth;
  private final int maxNameLength;

  /**
   * Configures a copy of the application's mapper.
   *
   * @param mapper the application's mapper, left as it is
   * @param maxDepth {@code api.maxJsonDepth}: the deepest nesting of arrays and objects
   * @param maxNameLength {@code api.maxJsonNameLength}: the longest member name, in characters
   * @param maxStringLength the longest string; the request limit, so that one reports first
   */
  StrictJson(ObjectMapper mapper, int maxDepth, int maxNameLength, int maxStringLength) {
    ObjectMapper strict =
        mapper
            .copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            // A key twice in one object would otherwise let the last one win silently.
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    strict.setDefaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL));
    // 1e400 would become "Infinity", 7 "7", true "true": a string is only a JSON string.
    strict
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    for (LogicalType scalar :
        new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
      strict
          .coercionConfigFor(scalar)
          .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
          .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
    }
    strict
        .getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(maxDepth)
                .maxNameLength(maxNameLength)
                .maxStringLength(maxStringLength)
                .build());
    this.mapper = strict;
    this.maxDepth = maxDepth;
    this.maxNameLength = maxNameLength;
  }

  /**
   * Returns the strict mapper.
   *
   * @return the mapper; shared, not to be configured further
   */
  ObjectMapper mapper() {
    return mapper;
  }

  /**
   * Parses a request body.
   *
   * @param bytes the body
   * @return its tree, or null for an empty body
   * @throws ApiProblem {@code invalid_request} for a body that is not JSON or is over a parser
   *     limit
   */
  JsonNode readTree(byte[] bytes) {
    if (bytes.length == 0) {
      return null;
    }
    try {
      try {
        return mapper.readTree(bytes);
      } catch (StreamConstraintsException e) {
        throw e;
      } catch (com.fasterxml.jackson.core.JacksonException e) {
        if (!String.valueOf(e.getOriginalMessage()).startsWith(INVALID_UTF8)) {
          throw e;
        }
        // Jackson's byte parser refuses an escaped surrogate pair in a member name; its text
        // parser reads it. Bytes that are really no UTF-8 fail the strict decoding and keep the
        // first parser's word.
        String text;
        try {
          text =
              StandardCharsets.UTF_8
                  .newDecoder()
                  .onMalformedInput(CodingErrorAction.REPORT)
                  .onUnmappableCharacter(CodingErrorAction.REPORT)
                  .decode(ByteBuffer.wrap(bytes))
                  .toString();
        } catch (CharacterCodingException notUtf8) {
          throw e;
        }
        return mapper.readTree(text);
      }
    } catch (StreamConstraintsException e) {
      throw limitProblem(e);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw syntaxProblem(e);
    } catch (IOException e) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "The body could not be read.");
    }
  }

  /**
   * The problem of a body the parser refused, with its place when the parser knows one.
   *
   * @param e what the parser threw
   * @return {@code invalid_request}: a member twice in one object, or not valid JSON
   */
  static ApiProblem syntaxProblem(com.fasterxml.jackson.core.JacksonException e) {
    com.fasterxml.jackson.core.JsonLocation at = e.getLocation();
    // Without a location there is no line to name; "line 0, column 0" only confused.
    String where =
        at == null || at.getLineNr() < 1
            ? ""
            : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    // STRICT_DUPLICATE_DETECTION's words; the member's name, the client's text, is not repeated.
    if (String.valueOf(e.getOriginalMessage()).startsWith(DUPLICATE_MEMBER)) {
      return ApiProblem.of(
          ProblemType.INVALID_REQUEST,
          "The body holds a member twice in one object"
              + (where.isEmpty() ? "" : "," + where)
              + "; each member may appear once.");
    }
    return ApiProblem.of(ProblemType.INVALID_REQUEST, "The body is not valid JSON" + where + ".");
  }

  /**
   * The problem of a parser limit, naming its configuration key.
   *
   * @param e what the parser threw
   * @return the problem, with the member {@code limit} when a key is known
   */
  ApiProblem limitProblem(StreamConstraintsException e) {
    String message = String.valueOf(e.getMessage());
    if (message.contains("getMaxNestingDepth")) {
      return ApiProblem.of(
              ProblemType.INVALID_REQUEST,
              "The body nests arrays and objects deeper than " + DEPTH_KEY + " (" + maxDepth + ").")
          .with("limit", DEPTH_KEY);
    }
    if (message.contains("getMaxNameLength")) {
      return ApiProblem.of(
              ProblemType.INVALID_REQUEST,
              "A member name in the body is longer than "
                  + NAME_KEY
                  + " ("
                  + maxNameLength
                  + " characters).")
          .with("limit", NAME_KEY);
    }
    if (message.contains("getMaxNumberLength")) {
      return ApiProblem.of(
          ProblemType.INVALID_REQUEST,
          "A number in the body has more digits than the JSON parser takes ("
              + StreamReadConstraints.DEFAULT_MAX_NUM_LEN
              + ").");
    }
    return ApiProblem.of(
        ProblemType.INVALID_REQUEST, "The body is over a limit of the JSON parser.");
  }

  /**
   * Checks every member name and string value under a node: valid Unicode (no lone surrogate) and
   * no U+0000.
   *
   * @param node the node
   * @param at its JSON pointer
   * @throws ApiProblem {@code invalid_request} with the pointer of the first bad name or string
   */
  static void requireValidText(JsonNode node, String at) {
    if (node.isTextual()) {
      String problem = textProblem(node.textValue());
      if (problem != null) {
        throw ApiProblem.at(ProblemType.INVALID_REQUEST, at, "This string " + problem + ".");
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        requireValidText(node.get(i), at + "/" + i);
      }
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> member : node.properties()) {
        String memberAt = at + "/" + pointerSegment(member.getKey());
        String problem = textProblem(member.getKey());
        if (problem != null) {
          throw ApiProblem.at(
              ProblemType.INVALID_REQUEST, memberAt, "This member name " + problem + ".");
        }
        requireValidText(member.getValue(), memberAt);
      }
    }
  }

  /** What is wrong with a string, or null when nothing is. */
  private static String textProblem(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\0') {
        return "holds U+0000, which the database cannot store";
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return "holds a lone surrogate: strings must be valid Unicode";
      }
    }
    return null;
  }

  /**
   * A member name as a JSON pointer segment (RFC 6901), cut like all echoed input.
   *
   * @param name the member name
   * @return the segment
   */
  static String pointerSegment(String name) {
    return ApiProblem.echo(name).replace("~", "~0").replace("/", "~1");
  }
}

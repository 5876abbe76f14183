package dev.bothy.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.bothy.webhooks.NewSubscription;
import dev.bothy.webhooks.SubscriptionChange;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Reads the bodies of {@code /v1/webhooks/subscriptions} as strictly as the append body: valid
 * Unicode without U+0000, known members only, each of its declared JSON type; every problem names
 * the member with a JSON pointer. It never echoes a URL, which may hold a token.
 */
final class WebhookRequestReader {
  private static final Set<String> CREATE_MEMBERS =
      Set.of("url", "event_types", "ordered", "rate_limit");
  private static final Set<String> UPDATE_MEMBERS = Set.of("url", "event_types", "rate_limit");

  private final StrictJson json;

  WebhookRequestReader(StrictJson json) {
    this.json = json;
  }

  NewSubscription create(byte[] bytes) {
    JsonNode root = object(bytes, CREATE_MEMBERS);
    String url = text(root, "url").orElseThrow(() -> missing("/url", "url is required."));
    List<String> types =
        textList(root, "event_types")
            .orElseThrow(() -> missing("/event_types", "event_types is required."));
    boolean ordered = bool(root, "ordered").orElse(false);
    return new NewSubscription(url, types, ordered, integer(root, "rate_limit"));
  }

  SubscriptionChange update(byte[] bytes) {
    JsonNode root = object(bytes, UPDATE_MEMBERS);
    return new SubscriptionChange(
        text(root, "url"), textList(root, "event_types"), integer(root, "rate_limit"));
  }

  long seq(byte[] bytes, String member) {
    JsonNode root = object(bytes, Set.of(member));
    JsonNode node = root.get(member);
    if (node == null) {
      throw missing("/" + member, member + " is required.");
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 1) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, "/" + member, member + " must be an integer of 1 or more.");
    }
    return node.asLong();
  }

  private JsonNode object(byte[] bytes, Set<String> allowed) {
    JsonNode root = json.readTree(bytes);
    if (root == null || root.isMissingNode()) {
      throw ApiProblem.of(ProblemType.INVALID_REQUEST, "The body is empty; send a JSON object.");
    }
    StrictJson.requireValidText(root, "");
    if (!root.isObject()) {
      throw ApiProblem.at(ProblemType.INVALID_REQUEST, "", "Expected a JSON object here.");
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw ApiProblem.at(
            ProblemType.INVALID_REQUEST,
            "/" + StrictJson.pointerSegment(name),
            "Unknown member; allowed here: "
                + String.join(", ", allowed.stream().sorted().toList())
                + ".");
      }
    }
    return root;
  }

  private static Optional<String> text(JsonNode root, String member) {
    JsonNode node = root.get(member);
    if (node == null) {
      return Optional.empty();
    }
    if (!node.isTextual()) {
      throw ApiProblem.at(ProblemType.INVALID_REQUEST, "/" + member, member + " must be a string.");
    }
    return Optional.of(node.asText());
  }

  private static Optional<List<String>> textList(JsonNode root, String member) {
    JsonNode node = root.get(member);
    if (node == null) {
      return Optional.empty();
    }
    if (!node.isArray()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, "/" + member, member + " must be an array of strings.");
    }
    List<String> values = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isTextual()) {
        throw ApiProblem.at(
            ProblemType.INVALID_REQUEST, "/" + member + "/" + i, "Expected a string here.");
      }
      values.add(node.get(i).asText());
    }
    return Optional.of(values);
  }

  private static Optional<Boolean> bool(JsonNode root, String member) {
    JsonNode node = root.get(member);
    if (node == null) {
      return Optional.empty();
    }
    if (!node.isBoolean()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, "/" + member, member + " must be true or false.");
    }
    return Optional.of(node.asBoolean());
  }

  private static OptionalInt integer(JsonNode root, String member) {
    JsonNode node = root.get(member);
    if (node == null) {
      return OptionalInt.empty();
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw ApiProblem.at(
          ProblemType.INVALID_REQUEST, "/" + member, member + " must be an integer.");
    }
    return OptionalInt.of(node.asInt());
  }

  private static ApiProblem missing(String pointer, String detail) {
    return ApiProblem.at(ProblemType.INVALID_REQUEST, pointer, detail);
  }
}

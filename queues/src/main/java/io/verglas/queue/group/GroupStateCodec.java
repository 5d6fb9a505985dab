package io.verglas.queue.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON of a group state object, version 2: {@code {"version":2,"acked":41,"generation":7,
 * "leases":[{"first":42,"last":44,"consumer":"c1","generation":7,"deadline":1700000000000,
 * "done":false,"deliveries":1}]}}. Version 1 (written before leases counted their deliveries)
 * is read with one delivery per lease; readers refuse other versions.
 */
public final class GroupStateCodec {
  public static final int VERSION = 2;
  private static final int FIRST_VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  private GroupStateCodec() {}

  public static byte[] toJson(GroupState state) {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", VERSION);
    root.put("acked", state.acked());
    root.put("generation", state.generation());
    ArrayNode leases = root.putArray("leases");
    for (Lease lease : state.leases()) {
      leases.addObject().put("first", lease.first()).put("last", lease.last())
          .put("consumer", lease.consumer()).put("generation", lease.generation())
          .put("deadline", lease.deadlineMillis()).put("done", lease.done())
          .put("deliveries", lease.deliveries());
    }
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static GroupState fromJson(byte[] bytes) {
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read consumer group state: " + e.getMessage(), e);
    }
    int version = root == null ? -1 : root.path("version").asInt(-1);
    if (version != VERSION && version != FIRST_VERSION) {
      throw new IllegalArgumentException("Cannot read consumer group state: unknown version "
          + (root == null ? "(empty)" : root.path("version")));
    }
    List<Lease> leases = new ArrayList<>();
    for (JsonNode lease : root.path("leases")) {
      leases.add(new Lease(lease.path("first").asLong(), lease.path("last").asLong(),
          lease.path("consumer").asText(), lease.path("generation").asLong(),
          lease.path("deadline").asLong(), lease.path("done").asBoolean(),
          lease.path("deliveries").asInt(1)));
    }
    return new GroupState(root.path("acked").asLong(), root.path("generation").asLong(), leases);
  }
}

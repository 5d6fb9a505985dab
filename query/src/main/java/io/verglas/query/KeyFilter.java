package io.verglas.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The filter of a lookup: {@code key in (...)} for a one-column key, else an OR of the keys'
 * column equalities, built as a balanced tree (no deep recursion for thousands of keys). Values
 * are converted to the key columns' types by Iceberg's expression parser, so a key of the wrong
 * type is a precise 400. The reader prunes files and row groups with it, bloom filters included.
 */
final class KeyFilter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeyFilter() {}

  static Expression of(TableReads reads, List<String> keyColumns, List<JsonNode> keys) {
    if (keyColumns.size() == 1) {
      String column = keyColumns.get(0);
      ArrayNode values = JSON.createArrayNode();
      for (JsonNode key : keys) {
        values.add(scalar(key, column));
      }
      ObjectNode in = JSON.createObjectNode().put("type", "in").put("term", column);
      in.set("values", values);
      return reads.expression(in.toString());
    }
    List<Expression> each = new ArrayList<>(keys.size());
    for (JsonNode key : keys) {
      each.add(composite(reads, keyColumns, key));
    }
    return balancedOr(each, 0, each.size());
  }

  private static JsonNode scalar(JsonNode key, String column) {
    JsonNode value = key.isObject() ? key.get(column) : key;
    if (value == null || value.isNull() || value.isContainerNode()) {
      throw QueryException.badRequest("Invalid key " + key + ": a value of primary-key column " + column + " is needed");
    }
    if (key.isObject() && key.size() != 1) {
      throw QueryException.badRequest("Invalid key " + key + ": the primary key is (" + column + ")");
    }
    return value;
  }

  private static Expression composite(TableReads reads, List<String> keyColumns, JsonNode key) {
    if (!key.isObject() || key.size() != keyColumns.size()) {
      throw QueryException.badRequest("Invalid key " + key + ": an object naming each primary-key column "
          + keyColumns + " is needed");
    }
    Expression all = null;
    for (String column : keyColumns) {
      ObjectNode eq = JSON.createObjectNode().put("type", "eq").put("term", column);
      JsonNode value = key.get(column);
      if (value == null || value.isNull() || value.isContainerNode()) {
        throw QueryException.badRequest("Invalid key " + key + ": a value of primary-key column "
            + column + " is needed");
      }
      eq.set("value", value);
      Expression one = reads.expression(eq.toString());
      all = all == null ? one : Expressions.and(all, one);
    }
    return all;
  }

  private static Expression balancedOr(List<Expression> each, int from, int to) {
    if (to - from == 1) {
      return each.get(from);
    }
    int mid = (from + to) >>> 1;
    return Expressions.or(balancedOr(each, from, mid), balancedOr(each, mid, to));
  }
}

package io.verglas.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

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

  /**
   * Each key's values in the key columns' order, converted to the columns' types (Iceberg's
   * internal form, as bound literals hold them); a key that no row can have (a value out of its
   * column's range) is left out.
   */
  static List<List<Object>> values(TableReads reads, List<String> keyColumns, List<JsonNode> keys) {
    Types.StructType struct = reads.schema().asStruct();
    List<List<Object>> values = new ArrayList<>(keys.size());
    for (JsonNode key : keys) {
      List<Object> tuple = new ArrayList<>(keyColumns.size());
      for (String column : keyColumns) {
        JsonNode value = keyColumns.size() == 1 ? scalar(key, column) : compositeValue(key, keyColumns, column);
        Expression bound = Binder.bind(struct, equal(reads, column, value), true);
        if (!(bound instanceof BoundPredicate<?> predicate) || !predicate.isLiteralPredicate()) {
          break;
        }
        tuple.add(predicate.asLiteralPredicate().literal().value());
      }
      if (tuple.size() == keyColumns.size()) {
        values.add(tuple);
      }
    }
    return values;
  }

  private static Expression composite(TableReads reads, List<String> keyColumns, JsonNode key) {
    Expression all = null;
    for (String column : keyColumns) {
      Expression one = equal(reads, column, compositeValue(key, keyColumns, column));
      all = all == null ? one : Expressions.and(all, one);
    }
    return all;
  }

  private static JsonNode compositeValue(JsonNode key, List<String> keyColumns, String column) {
    if (!key.isObject() || key.size() != keyColumns.size()) {
      throw QueryException.badRequest("Invalid key " + key + ": an object naming each primary-key column "
          + keyColumns + " is needed");
    }
    JsonNode value = key.get(column);
    if (value == null || value.isNull() || value.isContainerNode()) {
      throw QueryException.badRequest("Invalid key " + key + ": a value of primary-key column "
          + column + " is needed");
    }
    return value;
  }

  private static Expression equal(TableReads reads, String column, JsonNode value) {
    ObjectNode eq = JSON.createObjectNode().put("type", "eq").put("term", column);
    eq.set("value", value);
    return reads.expression(eq.toString());
  }

  private static Expression balancedOr(List<Expression> each, int from, int to) {
    if (to - from == 1) {
      return each.get(from);
    }
    int mid = (from + to) >>> 1;
    return Expressions.or(balancedOr(each, from, mid), balancedOr(each, mid, to));
  }
}

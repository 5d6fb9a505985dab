package io.verglas.cli.table;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;

/** Parses partition fields: {@code col}, {@code year|month|day|hour(col)}, {@code bucket(N, col)}, {@code truncate(W, col)}. */
public final class PartitionParser {
  private static final Pattern TRANSFORM = Pattern.compile("(\\w+)\\(\\s*(?:(\\d+)\\s*,\\s*)?(\\w+)\\s*\\)");

  private PartitionParser() {}

  public static PartitionSpec parse(Schema schema, List<String> fields) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (String raw : fields) {
      String field = raw.trim();
      Matcher m = TRANSFORM.matcher(field);
      if (!m.matches()) {
        builder.identity(field);
        continue;
      }
      String column = m.group(3);
      switch (m.group(1).toLowerCase()) {
        case "identity" -> builder.identity(column);
        case "year" -> builder.year(column);
        case "month" -> builder.month(column);
        case "day" -> builder.day(column);
        case "hour" -> builder.hour(column);
        case "bucket" -> builder.bucket(column, width(m, field));
        case "truncate" -> builder.truncate(column, width(m, field));
        default -> throw new IllegalArgumentException("Invalid partition field: '" + field
            + "' (transforms: identity, year, month, day, hour, bucket(N, col), truncate(W, col))");
      }
    }
    return builder.build();
  }

  private static int width(Matcher m, String field) {
    if (m.group(2) == null) {
      throw new IllegalArgumentException("Invalid partition field: '" + field + "' needs a number");
    }
    return Integer.parseInt(m.group(2));
  }
}

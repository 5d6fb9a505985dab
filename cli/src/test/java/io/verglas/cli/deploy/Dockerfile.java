package io.verglas.cli.deploy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The instructions of a Dockerfile, as far as the deployment test reads them: continuation
 * lines joined, comments dropped, each instruction split into its keyword and its arguments.
 */
record Dockerfile(Path path, List<Instruction> instructions) {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Instruction(String keyword, String arguments) {
    /** Whitespace-separated words, flags ({@code --from=build}) included. */
    List<String> words() {
      return Arrays.asList(arguments.trim().split("\\s+"));
    }

    /** The exec form's JSON array ({@code ENTRYPOINT ["a", "b"]}). */
    List<String> execForm() {
      try {
        return JSON.readValue(arguments, new TypeReference<List<String>>() {});
      } catch (IOException e) {
        throw new IllegalStateException("Cannot read " + keyword + " " + arguments
            + " as an exec-form array: " + e.getMessage(), e);
      }
    }
  }

  static Dockerfile read(Path path) throws IOException {
    List<Instruction> instructions = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String raw : Files.readAllLines(path)) {
      if (raw.strip().startsWith("#")) {
        continue;
      }
      if (raw.endsWith("\\")) {
        line.append(raw, 0, raw.length() - 1).append(' ');
        continue;
      }
      line.append(raw);
      String text = line.toString().strip();
      line.setLength(0);
      if (!text.isEmpty()) {
        int space = text.indexOf(' ');
        instructions.add(new Instruction(text.substring(0, space), text.substring(space + 1).strip()));
      }
    }
    return new Dockerfile(path, List.copyOf(instructions));
  }

  List<Instruction> all(String keyword) {
    return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
  }

  /** The last instruction of {@code keyword} (the one that counts for ENTRYPOINT and CMD). */
  Instruction last(String keyword) {
    List<Instruction> found = all(keyword);
    if (found.isEmpty()) {
      throw new IllegalStateException(path + " has no " + keyword);
    }
    return found.get(found.size() - 1);
  }

  /** The base image of the final stage. */
  String finalImage() {
    return last("FROM").words().get(0);
  }

  /** The sources of COPY instructions with {@code --from=build} (paths in the build stage). */
  List<String> copiedFromBuild() {
    List<String> sources = new ArrayList<>();
    for (Instruction copy : all("COPY")) {
      List<String> words = copy.words();
      if (words.contains("--from=build")) {
        List<String> paths = words.stream().filter(w -> !w.startsWith("--")).toList();
        sources.addAll(paths.subList(0, paths.size() - 1));
      }
    }
    return sources;
  }

  /** Where the COPY from the build stage of {@code source} puts it. */
  String copyDestination(String source) {
    for (Instruction copy : all("COPY")) {
      List<String> words = copy.words();
      if (words.contains("--from=build") && words.contains(source)) {
        return words.get(words.size() - 1);
      }
    }
    throw new IllegalStateException(path + " copies no " + source + " from the build stage");
  }

  /** The ports of EXPOSE instructions. */
  List<Integer> exposed() {
    return all("EXPOSE").stream().flatMap(i -> i.words().stream()).map(Integer::valueOf).toList();
  }
}

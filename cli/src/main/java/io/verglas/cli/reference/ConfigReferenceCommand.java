package io.verglas.cli.reference;

import io.verglas.cli.Verglas;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code verglas config-reference [--out FILE]}: prints or writes docs/configuration.md. */
@Command(name = "config-reference", mixinStandardHelpOptions = true,
    description = "Print the configuration reference (every command's options, the local "
        + "stack's config file keys, the Flink jobs' arguments) as Markdown.")
public final class ConfigReferenceCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "FILE", description = "Write it to FILE instead")
  Path out;

  @Override
  public Integer call() throws Exception {
    String reference = ConfigurationReference.render(new CommandLine(new Verglas()));
    if (out == null) {
      System.out.print(reference);
    } else {
      Files.writeString(out, reference, StandardCharsets.UTF_8);
      System.out.println("Wrote " + out);
    }
    return 0;
  }
}

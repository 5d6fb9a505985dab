package io.verglas.cli.reference;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cli.Verglas;
import io.verglas.config.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConfigurationReferenceTest {
  private static final Path DOC =
      Path.of("").toAbsolutePath().getParent().resolve("docs/configuration.md");

  @Test
  void theCheckedInReferenceIsWhatTheCodeDeclares() throws IOException {
    String generated = ConfigurationReference.render(new CommandLine(new Verglas()));
    assertThat(Files.readString(DOC))
        .as("docs/configuration.md is stale: run ./verglas config-reference --out "
            + "docs/configuration.md")
        .isEqualTo(generated);
  }

  @Test
  void theReferenceListsEveryCommandAndEverySetting() {
    String generated = ConfigurationReference.render(new CommandLine(new Verglas()));
    assertThat(generated).contains("### `./verglas local`", "### `./verglas push`",
        "### `./verglas table create`", "`--catalog-uri`", "## Materializer job",
        "## Maintenance job", "`local.events-retained`");
    for (ReferenceSection section : ConfigurationReference.sections()) {
      for (Setting<?> setting : section.settings().list()) {
        assertThat(generated).as(setting.key()).contains("`" + section.keyForm() + setting.key());
      }
    }
  }
}

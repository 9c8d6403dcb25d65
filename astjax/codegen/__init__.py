"""Code generation helpers: names, rule-template expansion, unparsing."""

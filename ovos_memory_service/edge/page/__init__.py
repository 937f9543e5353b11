"""The memory page (docs/page.md): what people see, correct and forget in a browser."""

\((sy|ss|nop\d)\)\s*

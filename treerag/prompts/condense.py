"""Prompt that turns a follow-up chat message into a standalone question."""

CONDENSE_PROMPT = """Rewrite the last user message as a standalone question that can be understood
without the conversation: resolve pronouns and references from the earlier turns. Keep the
language of the last message. Reply with the question only.

Conversation:
{history}

Last user message: {message}"""
